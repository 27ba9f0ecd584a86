#!/bin/sh
# TPROF_SIGNAL in a forked child: the child inherits the report signal's handler; raising the
# signal there writes the child's on-demand report and runs the program's own handler once per
# signal (the handler, installed again in the child, once took itself for the program's and
# called itself until the stack ran out), and without a handler of the program's the signal
# terminates neither process.
. "$TS/lib.sh"
for mode in handler none; do
  TPROF_SIGNAL=USR1 TPROF_OUTPUT=none TPROF_JSON="$WORK/$mode.%p.json" LD_PRELOAD="$TPROF_SO" \
    "$TB/victims/v_sigfork" "$WORK/$mode" $mode > "$WORK/out.$mode" 2> "$WORK/err.$mode"
  rc=$?
  [ $rc -eq 0 ] || fail "$mode: exit status $rc: $(cat "$WORK/err.$mode")"
  n=2 p=1
  [ $mode = none ] && n=0 p=0
  [ "$(cat "$WORK/out.$mode")" = "child handler calls $n, report written
parent handler calls $p, child exit 0" ] || fail "$mode: output: $(cat "$WORK/out.$mode")"
done
