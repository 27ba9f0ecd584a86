#!/bin/sh
# TPROF_SIGNAL=USR1 sent twice: two numbered reports, the program's own handler still runs,
# output and exit status unchanged.
. "$TS/lib.sh"
TPROF_SIGNAL=USR1 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_loop" 40 handler > "$WORK/out" &
pid=$!
sleep 0.3; kill -USR1 $pid; sleep 0.2; kill -USR1 $pid
wait $pid; rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
[ "$(cat "$WORK/out")" = "iterations 40, handler calls 2" ] || fail "output changed: $(cat "$WORK/out")"
[ -f "$WORK/r.sig1.json" ] && [ -f "$WORK/r.sig2.json" ] && [ -f "$WORK/r.json" ] || fail "reports: $(ls "$WORK")"
jcheck "$WORK/r.sig1.json" "site('step_alloc')['allocs'] >= 1" "site('step_alloc')['allocs'] < 40"
jcheck "$WORK/r.sig2.json" "site('step_alloc')['allocs'] >= 2"
jcheck "$WORK/r.json" "site('step_alloc')['allocs'] == 40" "site('step_alloc')['live_at_exit_bytes'] == 0"
# Without a handler of the program's, the signal's default action (terminate) must not happen.
TPROF_SIGNAL=USR2 TPROF_OUTPUT=none TPROF_JSON="$WORK/q.json" LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_loop" 20 > "$WORK/out2" &
pid=$!
sleep 0.2; kill -USR2 $pid
wait $pid || fail "SIGUSR2 killed the program"
[ -f "$WORK/q.sig1.json" ] || fail "no on-demand report: $(ls "$WORK")"
