#!/bin/sh
# Malformed settings: one line naming variable, value and default; the run goes on.
# TPROF_DISABLE=1 passes everything through.
. "$TS/lib.sh"
err=$(TPROF_STACK=abc TPROF_WARMUP=-3 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" 2>&1 >/dev/null) || fail "victim failed"
echo "$err" | grep -qx 'tprof: TPROF_STACK=abc: not an integer; using 8' || fail "no warning for TPROF_STACK: $err"
echo "$err" | grep -qx 'tprof: TPROF_WARMUP=-3: out of range; using 1' || fail "no warning for TPROF_WARMUP: $err"
[ "$(echo "$err" | wc -l)" -eq 2 ] || fail "expected exactly two lines: $err"
jcheck "$WORK/r.json" "m['peak_bytes'] == 14000" "len(site('site_a')['frames']) >= 2"
TPROF_STACK=1 TPROF_OUTPUT=none TPROF_JSON="$WORK/s1.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" >/dev/null || fail "victim failed"
jcheck "$WORK/s1.json" "len(site('site_a')['frames']) == 1" "site('site_a')['allocs'] == 3"
out=$(TPROF_DISABLE=1 TPROF_JSON="$WORK/none.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" 2>&1) || fail "victim failed"
[ "$out" = "done" ] || fail "TPROF_DISABLE=1 changed the output: $out"
[ ! -e "$WORK/none.json" ] || fail "TPROF_DISABLE=1 wrote a report"
err=$(TPROF_JSON="$WORK/x/%q.json" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" 2>&1 >/dev/null) || fail "victim failed with a bad path"
echo "$err" | grep -q "TPROF_JSON=.*%q" || fail "no one-line error for a bad template: $err"
err=$(TPROF_JSON="/nonexistent/dir/r.json" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" 2>&1 >/dev/null) || fail "unwritable path changed the exit status"
[ "$err" = "tprof: TPROF_JSON=/nonexistent/dir/r.json: directory /nonexistent/dir: No such file or directory; using none (no JSON report)" ] ||
  fail "no error at start-up for an unwritable path: $err"
