#!/bin/sh
# quick_exit writes exactly one report, after the program's at_quick_exit handlers ran, and the
# program keeps its output and exit status.
. "$TS/lib.sh"
V=$TB/victims/v_quickexit
for mode in once twice; do
  rm -f "$WORK"/r*
  "$V" $mode > "$WORK/native"; rc=$?
  [ $rc -eq 3 ] || fail "native run: exit status $rc"
  TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" $mode > "$WORK/out" 2> "$WORK/err"
  rc=$?
  [ $rc -eq 3 ] || fail "$mode: exit status $rc under tprof, 3 without"
  cmp -s "$WORK/out" "$WORK/native" || fail "$mode: output changed: $(cat "$WORK/out")"
  [ -s "$WORK/err" ] && fail "$mode: tprof said: $(cat "$WORK/err")"
  [ "$(ls "$WORK" | grep -c json)" -eq 1 ] || fail "$mode: expected one report: $(ls "$WORK")"
  jcheck "$WORK/r.json" "site('before_quick')['allocs'] == 1" "site('before_quick')['frees'] == 1" \
    "site('leaked')['live_at_exit_bytes'] == 1234" "m['unknown_frees'] == 0"
done
exit 0
