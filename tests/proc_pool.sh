#!/bin/sh
# Python's multiprocessing.Pool: leaving `with Pool(...) as p:` terminates the pool, which sends
# SIGTERM to every worker still alive, among them workers writing their report in os._exit.
# Every worker keeps its report (TPROF_JSON with %p): Pool(2).map over 10 items in 5 runs, and a
# pool whose workers each do one task (maxtasksperchild=1, chunksize=1: 10 workers) in one run.
# A worker is known by its pid: those that ran a task (f returns it) and those alive at the end.
# Call sites 2 frames deep: a Python process's report costs a second with the default depth here,
# and the test only counts them. So measured, a tprof that lost the report of a worker that SIGTERM
# met in _exit kept 3 of 10 and 41 of 50 worker reports in 5 runs of each pool.
. "$TS/lib.sh"
command -v python3 > /dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
python3 -c 'import multiprocessing.pool' 2> /dev/null ||
  { echo "SKIP: python3 has no multiprocessing"; exit 77; }
cat > "$WORK/pool.py" << 'PY'
import multiprocessing as mp
import os
import sys


def f(x):
    return os.getpid()


if __name__ == "__main__":
    one = sys.argv[1] == "one-task"
    with mp.Pool(2, maxtasksperchild=1 if one else None) as p:
        pids = set(p.map(f, range(10), chunksize=1 if one else None))
        if not one:
            pids |= {w.pid for w in p._pool}
    print(" ".join(str(x) for x in sorted(pids)))
PY
# run NAME MODE: the workers' pids in NAME.pids, every one of them with its own report
run() {
  rm -rf "$WORK/$1"
  mkdir "$WORK/$1"
  tp TPROF_STACK=2 TPROF_JSON="$WORK/$1/w.%p.json" LD_PRELOAD="$TPROF_SO" python3 "$WORK/pool.py" $2 \
    > "$WORK/$1.pids" || fail "$1: python3 failed"
  n=0
  for w in $(cat "$WORK/$1.pids"); do
    n=$((n + 1))
    [ -f "$WORK/$1/w.$w.json" ] || fail "$1: worker $w wrote no report (reports: $(ls "$WORK/$1"))"
    jcheck "$WORK/$1/w.$w.json" "d['program']['pid'] == $w"
  done
  echo "$n"
}
for i in 1 2 3 4 5; do
  n=$(run plain$i plain) || { echo "$n"; exit 1; }
  [ "$n" -eq 2 ] || fail "plain$i: $n workers, expected the pool's 2"
done
n=$(run one one-task) || { echo "$n"; exit 1; }
[ "$n" -eq 10 ] || fail "one task per worker: $n workers ran the 10 tasks, expected 10"
exit 0
