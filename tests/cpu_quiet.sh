#!/bin/sh
# The victim of cpu_wait.sh with each busy thread on its own CPU and nothing pinned beside it: no
# CPU verdict line. Other programs on this machine could make any run wait, so where the test may
# (root, or CAP_SYS_NICE) the victim runs under SCHED_FIFO, ahead of every ordinary task, with
# the CPU-time sampler off (its SIGPROF would wake the main thread while both CPUs spin for it):
# then nothing of the machine's load reaches it, and one run decides. Elsewhere the rule is
# applied to what the kernel measured: a run whose threads did wait (share at or above the
# rule's 20%) must then carry the line (checked), and is tried again, up to three times; if every
# try was crowded the test is skipped, saying so. Asserted on a quiet run: no CPU line in the
# text or the JSON, the header's CPU line matching the JSON, both threads listed and ended.
. "$TS/lib.sh"
[ -r /proc/self/schedstat ] || { echo "SKIP: no /proc/self/schedstat (kernel without schedstats)"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU: no two threads can each have their own"; exit 77; }
rt="" hz=100
if command -v chrt > /dev/null && chrt -f 1 true 2> /dev/null; then
  rt="chrt -f 1" hz=0
fi
for try in 1 2 3; do
  out=$(TPROF_SAMPLE_HZ=$hz TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" $rt env LD_PRELOAD="$TPROF_SO" \
    "$TB/victims/v_cpu" spread) || fail "victim failed: $?"
  [ "$out" = "done 2" ] || fail "stdout changed: $out"
  jcheck "$WORK/r.json" "sorted(t['name'] for t in d['threads'] if t['exited']) == ['tp-busy-a', 'tp-busy-b']" \
    "d['program']['cpus_allowed'] >= 2"
  if python3 -c "import json,sys; d=json.load(open('$WORK/r.json')); sys.exit(0 if d['verdict']['cpu_wait_share'] < 0.2 else 1)"; then
    python3 "$TS/cpu_text.py" "$WORK/r.txt" "$WORK/r.json" absent || fail "a CPU line on a quiet run"
    exit 0
  fi
  [ -z "$rt" ] || fail "the threads waited for a CPU under SCHED_FIFO"
  # other load made this run wait: the line must be there, and true
  python3 "$TS/cpu_text.py" "$WORK/r.txt" "$WORK/r.json" present || fail "a crowded run without its CPU line"
  sleep 1
done
echo "SKIP: the machine was busy in all three tries (load average $(cut -d' ' -f1 /proc/loadavg)): the threads waited for their CPUs each time"
exit 77
