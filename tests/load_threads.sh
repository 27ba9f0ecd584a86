#!/bin/sh
# 10,000 short-lived threads: exact totals.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" timeout 120 env LD_PRELOAD="$TPROF_SO" "$TB/victims/v_manythreads") || fail "victim failed: $?"
[ "$out" = "threads 10000" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "site('short_lived_alloc')['allocs'] == 20000" \
  "site('short_lived_alloc')['frees'] == 20000" "site('short_lived_alloc')['bytes'] == 10000 * 201 + 2 * sum(range(8)) * 1250" \
  "m['unknown_frees'] == 0"
