#!/bin/sh
# The annotation API with tprof (exact regions, FLOPs, nesting, steps) and without (a no-op).
. "$TS/lib.sh"
out=$("$TB/victims/v_api") || fail "the program failed without tprof"
[ "$out" = "active 0" ] || fail "without tprof: $out"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_api") || fail "victim failed"
[ "$out" = "active 1" ] || fail "with tprof: $out"
jcheck "$WORK/r.json" \
  "ops['attention']['calls'] == 6" "ops['qk_matmul']['calls'] == 6" \
  "ops['attention']['flops'] == 6000 and ops['attention']['bytes'] == 2400" \
  "ops['qk_matmul']['flops'] == 30000 and ops['qk_matmul']['bytes'] == 0" \
  "ops['attention']['kind'] == 'region' and ops['attention']['source'] == 'api'" \
  "ops['attention']['self_ns'] < ops['attention']['total_ns']" \
  "ops['attention']['total_ns'] >= ops['qk_matmul']['total_ns']" \
  "abs(ops['attention']['total_ns'] - ops['attention']['self_ns'] - ops['qk_matmul']['total_ns']) <= 0.01 * ops['attention']['total_ns']" \
  "d['steps']['count'] == 5 and d['steps']['name'] == 'tprof_step'"
