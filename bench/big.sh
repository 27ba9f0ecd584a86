#!/bin/sh
# Big programs under tprof: python3-torch's 1000-step MLP (bench/torch_mlp.py, skipped without
# python3-torch) and a generated C program with 10^6 distinct call sites behind a deep library
# stack (bench/big_gen.py). Prints wall time native / tprof, report time, tprof's own RSS, the
# JSON's size (bench/big.py), and what the call-site table holds a site (bench/site_bytes, built by
# `make check`). Run from the build directory after `make`:
#   sh bench/big.sh [runs]
set -eu
runs=${1:-1}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/big_gen.py" 1000 "$tmp"
cflags="-O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls"
gcc $cflags -fPIC -shared -o "$tmp/libbigsites.so" "$tmp/bigsites_lib.c"
gcc $cflags -o "$tmp/bigsites" "$tmp/bigsites_main.c" -L"$tmp" -lbigsites -Wl,-rpath,"$tmp"
echo "== 10^6 call sites, default settings"
python3 "$here/big.py" --runs "$runs" -- "$tmp/bigsites"
if [ -x bench/site_bytes ]; then
  echo "== the call-site table's bytes a site for the same stacks (bench/site_bytes)"
  bench/site_bytes
fi
echo "== 10^6 call sites, TPROF_MEMORY_BUDGET=256M"
python3 "$here/big.py" --runs "$runs" --env TPROF_MEMORY_BUDGET=256M -- "$tmp/bigsites"
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "== python3-torch MLP, 1000 steps, default settings"
  python3 "$here/big.py" --runs "$runs" -- /usr/bin/python3 "$here/torch_mlp.py" 1000
else
  echo "== python3-torch not installed: MLP skipped"
fi
