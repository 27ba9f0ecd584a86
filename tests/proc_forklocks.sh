#!/bin/sh
# fork while another thread is inside tprof's locks (tests/victims/v_forklocks.c): 200 children
# each, forked while a thread loops through the symbol-table and op-name locks ("names"), and
# through dlclose's module-list lock ("modules"); every child must exit 0. A child still there
# 30 s after its fork counts as deadlocked; timeout bounds the whole run. TPROF_MAX_OPS=16 keeps
# the op table small (the worker makes a new op name on every turn: past the table's end it
# still takes the lock), so that each child's copy of it costs little.
. "$TS/lib.sh"
command -v timeout > /dev/null || { echo "timeout(1) is missing"; exit 77; }
V=$TB/victims/v_forklocks
for mode in names modules; do
  out=$(TPROF_MAX_OPS=16 TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" timeout -k 10 600 "$V" 200 $mode \
        2> "$WORK/err")
  rc=$?
  [ "$out" = "forks 200, exited 0: 200, deadlocked: 0" ] && [ $rc -eq 0 ] ||
    fail "$mode: $out (exit status $rc) $(cat "$WORK/err")"
  [ -s "$WORK/err" ] && fail "$mode: tprof said: $(cat "$WORK/err")"
done
exit 0
