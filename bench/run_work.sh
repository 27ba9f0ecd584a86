#!/bin/sh
# The cost of an instrumented op's call with a TPROF_WORK entry (its parameters read where the
# DWARF places them, the formula run, the shape kept) against the same op without one:
# bench/work_storm's tiny_gemv, every call timed (TPROF_DEMOTE=0). Instructions per call by
# callgrind (two run lengths; the difference over the difference in calls leaves out start-up),
# then ns per call from interleaved runs (best of ROUNDS each). Run from the build directory
# after `make bench/work_storm`:   sh bench/run_work.sh [ROUNDS] [path/to/libtprof.so]
set -eu
rounds=${1:-7}
so=${2:-$(pwd)/.libs/libtprof.so}
W='tiny_gemv: flops=2*rows*cols bytes=4*(rows*cols+rows+cols)'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ins() { # calls env...
  n=$1
  shift
  env "$@" TPROF_OPS=tiny_gemv TPROF_DEMOTE=0 TPROF_OUTPUT=none LD_PRELOAD="$so" \
      valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" bench/work_storm "$n" \
      > /dev/null 2> "$tmp/log"
  callgrind_annotate --inclusive=yes "$tmp/cg.out" |
    awk '/work_storm.c:main/ { gsub(",", "", $1); print $1; exit }'
}
for mode in plain work; do
  if [ "$mode" = work ]; then set -- TPROF_WORK="$W"; else set -- TPROF_X=; fi
  a=$(ins 100000 "$@")
  b=$(ins 200000 "$@")
  echo "callgrind: op call, $mode: $(( (b - a) / 100000 )) instructions"
done
best_plain=999999
best_work=999999
best_native=999999
i=0
while [ "$i" -lt "$rounds" ]; do
  for mode in native plain work; do
    case $mode in
    native) t=$(bench/work_storm 1000000) ;;
    plain) t=$(env TPROF_OPS=tiny_gemv TPROF_DEMOTE=0 TPROF_OUTPUT=none LD_PRELOAD="$so" \
               bench/work_storm 1000000) ;;
    work) t=$(env TPROF_OPS=tiny_gemv TPROF_DEMOTE=0 TPROF_OUTPUT=none TPROF_WORK="$W" \
              LD_PRELOAD="$so" bench/work_storm 1000000) ;;
    esac
    ns=$(echo "$t" | awk '{print $3}')
    eval "b=\$best_$mode"
    if awk "BEGIN{exit !($ns < $b)}"; then eval "best_$mode=$ns"; fi
  done
  i=$((i + 1))
done
echo "ns per call, best of $rounds interleaved rounds: native (glibc's empty hooks) $best_native," \
  "op $best_plain, op with TPROF_WORK $best_work"
awk "BEGIN{printf \"tprof per op call with a work entry: %.1f ns (target < 60); the entry adds %.1f ns\n\", $best_work - $best_native, $best_work - $best_plain}"
