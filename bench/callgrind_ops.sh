#!/bin/sh
# Instructions per call of bench/cyg_storm's loop under libtprof.so, by callgrind (deterministic,
# unlike wall time on a shared machine): a non-op instrumented function (nonop), a tiny
# instrumented op (op) and a tiny shared-library op called through the PLT (plt), each with the
# default settings (tiny ops are demoted to counts after their first calls) and with
# TPROF_DEMOTE=0 (every call timed). Two run lengths; the difference over the difference in calls
# leaves out start-up and the first calls. Run from the build directory after `make
# bench/cyg_storm`:
#   sh bench/callgrind_ops.sh [path/to/libtprof.so]
set -eu
so=${1:-$(pwd)/.libs/libtprof.so}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
storm_ins() { # mode calls env...
  mode=$1 n=$2
  shift 2
  env "$@" LD_PRELOAD="$so" TPROF_OUTPUT=none valgrind --tool=callgrind \
      --callgrind-out-file="$tmp/cg.out" bench/cyg_storm "$mode" "$n" > /dev/null 2> "$tmp/log"
  callgrind_annotate --inclusive=yes "$tmp/cg.out" | awk '/cyg_storm.c:main/ { gsub(",", "", $1); print $1; exit }'
}
for demote in default 0; do
  for mode in nonop op plt; do
    if [ "$demote" = default ]; then set --; else set -- TPROF_DEMOTE=0; fi
    a=$(storm_ins "$mode" 100000 "$@")
    b=$(storm_ins "$mode" 200000 "$@")
    echo "demote=$demote mode=$mode per_call=$(( (b - a) / 100000 ))"
  done
done
