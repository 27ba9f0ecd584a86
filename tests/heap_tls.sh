#!/bin/sh
# tprof's own TLS modules (libtprof.so, elfutils' namespace) make each thread's DTV larger: the
# report records it at the program's own size, read back by the victim from the thread run
# without tprof. Peak and live at exit are then the program's bytes exactly: 3 MiB + that DTV.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
dtv0=$("$V" | sed -n 's/^dtv //p') || fail "victim failed alone"
[ "$dtv0" -gt 0 ] 2>/dev/null || { echo "SKIP: the DTV is read on x86-64 only"; exit 77; }
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed: $?"
dtv1=$(echo "$out" | sed -n 's/^dtv //p')
# Else the test shows nothing: tprof adds modules of its own.
[ "$dtv1" -gt "$dtv0" ] || fail "the DTV under tprof ($dtv1) is not larger than alone ($dtv0)"
jcheck "$WORK/r.json" \
  "m['allocs'] == 2" "m['peak_bytes'] == 3145728 + $dtv0" "m['live_at_exit_bytes'] == 3145728 + $dtv0" \
  "m['bytes_allocated'] == 3145728 + $dtv0" "site('allocate_dtv')['bytes'] == $dtv0" \
  "m['live_at_exit_system_bytes'] == $dtv0" "m['live_at_exit_program_bytes'] == 3145728"
# tprof's own threads (snapshots, the report signal, the trace) and files add nothing either.
TPROF_OUTPUT=none TPROF_SNAPSHOT=0.01 TPROF_SIGNAL=USR1 TPROF_TRACE="$WORK/t.json" \
    TPROF_FOLDED="$WORK/f" TPROF_JSON="$WORK/r2.json" LD_PRELOAD="$TPROF_SO" "$V" >/dev/null ||
    fail "victim failed with tprof's threads: $?"
jcheck "$WORK/r2.json" \
  "m['allocs'] == 2" "m['peak_bytes'] == 3145728 + $dtv0" "m['live_at_exit_bytes'] == 3145728 + $dtv0"
