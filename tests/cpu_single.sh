#!/bin/sh
# One busy thread allowed two CPUs, each CPU taken by a busy loop pinned to it: the thread waits
# for a CPU (two tasks on each CPU it may use), but not because of itself. The CPU line says its
# busy thread is no more than the 2 CPUs it may use, that the other load kept it waiting, and
# advises less of that load, naming no runtime's thread setting (the victim loads none); the
# process got no more than one CPU (one thread cannot use more, its CPU counted from tprof's
# start). The victim is v_cpu's "steps" (its main thread spins 180 ms of CPU, no other thread).
. "$TS/lib.sh"
[ -r /proc/self/schedstat ] || { echo "SKIP: no /proc/self/schedstat (kernel without schedstats)"; exit 77; }
command -v taskset > /dev/null || { echo "SKIP: no taskset"; exit 77; }
cpus=$(taskset -pc $$ | sed 's/.*: //')
case $cpus in *0*1* | 0-*) ;; *) echo "SKIP: CPUs 0 and 1 not both allowed ($cpus)"; exit 77 ;; esac
taskset -c 0 sh -c 'while :; do :; done' &
b0=$!
taskset -c 1 sh -c 'while :; do :; done' &
b1=$!
trap 'kill $b0 $b1 2> /dev/null; rm -rf "$WORK"' EXIT
out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" taskset -c 0,1 env LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_cpu" steps) || fail "victim failed: $?"
[ "$out" = "done 3 steps" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "d['program']['cpu_source'] == 'schedstat'" \
  "d['program']['cpus_allowed'] == 2" \
  "len(d['threads']) == 1" \
  "d['program']['thread_runtimes'] == ''" \
  "d['program']['cpu_ns'] <= d['program']['wall_ns']" \
  "d['verdict']['cpu_text'] is not None" \
  "'Its busy threads (those runnable at least half their time: 1) are no more than the 2 CPUs it may use: other load on these CPUs' in d['verdict']['cpu_text']" \
  "d['verdict']['cpu_text'].endswith('include that wait: less other load on these CPUs (an idle machine, or taskset to CPUs nothing else runs on) gives it back.')" \
  "'NUM_THREADS' not in d['verdict']['cpu_text'] and 'more busy threads' not in d['verdict']['cpu_text']"
python3 "$TS/cpu_text.py" "$WORK/r.txt" "$WORK/r.json" present || fail "CPU verdict line"
