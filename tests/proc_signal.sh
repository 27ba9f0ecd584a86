#!/bin/sh
# Death by signal: the report is written and the exit status is the signal's. The victim starts
# with every signal at its default action: a suite started in the background has SIGINT ignored.
. "$TS/lib.sh"
for case in TERM:143 INT:130 ABRT:134 SEGV:139; do
  sig=${case%:*}; want=${case#*:}
  out=$( (ulimit -c 0; exec env --default-signal TPROF_OUTPUT=none TPROF_JSON="$WORK/$sig.json" \
          LD_PRELOAD="$TPROF_SO" "$TB/victims/v_signal" $sig) 2>/dev/null); rc=$?
  [ $rc -eq $want ] || fail "SIG$sig: exit status $rc, expected $want"
  [ "$out" = "before" ] || fail "SIG$sig: stdout changed: $out"
  jcheck "$WORK/$sig.json" "site('main')['live_at_exit_bytes'] == 12345" "m['peak_bytes'] >= 12345"
done
