#!/bin/sh
# Instructions per malloc/free pair of bench/churn's worker under libtprof.so, by callgrind
# (deterministic, unlike wall time on a shared machine): at the default stack depth, at
# TPROF_STACK=1, and under a plain forwarding shim (bench/fwdshim.c, built here) for the floor any
# interposer pays; native last.
# Run from the build directory after `make bench/churn`:
#   sh bench/callgrind_pair.sh [path/to/libtprof.so]
set -eu
so=${1:-$(pwd)/.libs/libtprof.so}
src=$(cd "$(dirname "$0")/.." && pwd)
ops=200000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/fwdshim.so" "$src/bench/fwdshim.c" -ldl
for mode in default 1 shim native; do
  case $mode in
  default) set -- LD_PRELOAD="$so" ;;
  1) set -- LD_PRELOAD="$so" TPROF_STACK=1 ;;
  shim) set -- LD_PRELOAD="$tmp/fwdshim.so" ;;
  native) set -- TPROF_UNUSED=1 ;;
  esac
  env "$@" TPROF_OUTPUT=none valgrind --tool=callgrind \
      --callgrind-out-file="$tmp/cg.out" bench/churn --ops $ops --min 64 --max 4096 \
      > /dev/null 2> "$tmp/log"
  # The worker makes ops pairs plus n_live (1,024 by default) to fill and empty its slots.
  incl=$(callgrind_annotate --inclusive=yes "$tmp/cg.out" | awk '/worker/ { gsub(",", "", $1); print $1; exit }')
  echo "depth=$mode worker_instructions=$incl per_pair=$(( incl / (ops + 1024) ))"
done
