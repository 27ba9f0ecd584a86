#!/bin/sh
# Instructions per call of bench/cyg_storm's tiny instrumented op (tiny_gemm, every call timed:
# TPROF_DEMOTE=0) under a build tree's libtprof.so, with the settings given as VAR=value
# arguments: the op-stack table is on with TPROF_FOLDED, TPROF_HTML or TPROF_PPROF_TIME, FLOPs
# per call with TPROF_WORK. Only storm() is collected, and dumped as it returns: a run that writes
# files starts the reporter with clone(), which stops valgrind at exit. Two run lengths; the
# difference over the difference in calls leaves out start-up and the first calls. After
# `make bench/cyg_storm` in the tree:
#   sh bench/callgrind_optree.sh TREE [VAR=value...]
set -eu
tree=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ins() {
  rm -f "$tmp"/cg.out* "$tmp"/f.*
  env "$@" LD_PRELOAD="$tree/.libs/libtprof.so" TPROF_OUTPUT=none TPROF_DEMOTE=0 valgrind --tool=callgrind \
      --toggle-collect=storm --dump-after=storm \
      --callgrind-out-file="$tmp/cg.out" "$tree/bench/cyg_storm" op $N > /dev/null 2> "$tmp/log" || true
  sed -n 's/^totals: *//p' "$tmp/cg.out.2"
}
N=100000; a=$(ins "$@"); N=200000; b=$(ins "$@")
echo "$(( (b - a) / 100000 ))"
