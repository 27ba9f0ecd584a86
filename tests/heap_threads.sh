#!/bin/sh
# 4 threads x 250,000 malloc/free pairs: exact totals under contention.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_threads") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "site('worker')['allocs'] == 1000000" "site('worker')['frees'] == 1000000" \
  "site('worker')['bytes'] == 197498464" "site('worker')['live_at_exit_bytes'] == 0" \
  "m['unknown_frees'] == 0" "d['program']['threads'] >= 4"
