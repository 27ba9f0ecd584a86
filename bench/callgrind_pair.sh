#!/bin/sh
# Instructions per malloc/free pair of bench/churn's worker under libtprof.so, by callgrind
# (deterministic, unlike wall time on a shared machine), at the default stack depth and at
# TPROF_STACK=1. Run from the build directory after `make bench/churn`:
#   sh bench/callgrind_pair.sh [path/to/libtprof.so]
set -eu
so=${1:-$(pwd)/.libs/libtprof.so}
ops=200000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for depth in default 1; do
  if [ "$depth" = default ]; then set --; else set -- TPROF_STACK=1; fi
  env "$@" LD_PRELOAD="$so" TPROF_OUTPUT=none valgrind --tool=callgrind \
      --callgrind-out-file="$tmp/cg.out" bench/churn --ops $ops --min 64 --max 4096 \
      > /dev/null 2> "$tmp/log"
  # The worker makes ops pairs plus n_live (1,024 by default) to fill and empty its slots.
  incl=$(callgrind_annotate --inclusive=yes "$tmp/cg.out" | awk '/worker/ { gsub(",", "", $1); print $1; exit }')
  echo "depth=$depth worker_instructions=$incl per_pair=$(( incl / (ops + 1024) ))"
done
