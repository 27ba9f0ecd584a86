#!/bin/sh
# TPROF_SNAPSHOT: a program SIGKILLed after a few snapshot periods leaves a readable report.
. "$TS/lib.sh"
TPROF_SNAPSHOT=0.1 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_loop" 100 > /dev/null &
pid=$!
sleep 0.5
kill -KILL $pid
wait $pid; rc=$?
[ $rc -eq 137 ] || fail "exit status $rc, expected 137"
[ -f "$WORK/r.json" ] || fail "no snapshot: $(ls "$WORK")"
ls "$WORK" | grep -q tmp && fail "a temporary file was left: $(ls "$WORK")"
jcheck "$WORK/r.json" "site('step_alloc')['allocs'] >= 5" "site('step_alloc')['allocs'] < 100"
# A run that ends normally: the report at exit says how many snapshots were written and what
# they cost (README: what a snapshot costs).
TPROF_SNAPSHOT=0.05 TPROF_OUTPUT=none TPROF_JSON="$WORK/s.json" LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_loop" 10 > /dev/null || fail "v_loop 10 failed under snapshots"
jcheck "$WORK/s.json" \
  "any(n.startswith('TPROF_SNAPSHOT: ') and ' snapshots written, ' in n and ' ms each on average' in n for n in d['notes'])" \
  "site('step_alloc')['allocs'] == 10"
