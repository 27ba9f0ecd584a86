#!/bin/sh
# 8 threads x 10^6 mixed operations with cross-thread frees: totals exact, no deadlock, output
# unchanged.
. "$TS/lib.sh"
native=$("$TB/victims/v_load") || fail "native run failed"
out=$(TPROF_STACK=4 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" timeout 300 env LD_PRELOAD="$TPROF_SO" "$TB/victims/v_load") || fail "victim failed: $?"
[ "$out" = "$native" ] || fail "stdout changed: '$out' vs '$native'"
allocs=$(echo "$out" | awk '{print $2}')
frees=$(echo "$out" | awk '{print $4}')
jcheck "$WORK/r.json" \
  "sum(site(f)['allocs'] or 0 for f in ('load_malloc','load_calloc','load_aligned','load_realloc')) == $allocs" \
  "sum(site(f)['frees'] or 0 for f in ('load_malloc','load_calloc','load_aligned','load_realloc')) == $frees" \
  "sum(site(f)['live_at_exit_bytes'] or 0 for f in ('load_malloc','load_calloc','load_aligned','load_realloc')) == 0" \
  "m['unknown_frees'] == 0" "m['allocs'] >= $allocs"
