#!/bin/sh
# exit() from a second thread: report written, exit status kept.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_thread_exit"); rc=$?
[ $rc -eq 3 ] || fail "exit status $rc, expected 3"
[ "$out" = "bye" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "site('worker')['live_at_exit_bytes'] == 7000"
