#!/bin/sh
# realloc growth chain, realloc(NULL,n), realloc(p,0), reallocarray, failures.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_realloc") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "m['allocs'] == 13" "m['frees'] == 13" "m['peak_bytes'] == 102400" \
  "m['live_at_exit_bytes'] == 0" "m['unknown_frees'] == 0" "m['failed_allocs'] == 1" \
  "m['bytes_allocated'] == 100 + sum(200 * 2**i for i in range(10)) + 40 + 80"
