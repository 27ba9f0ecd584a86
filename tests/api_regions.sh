#!/bin/sh
# The annotation API with tprof (exact regions, FLOPs, bytes, nesting, steps, misuse) and
# without (the same program runs, as no-ops, with the same output).
. "$TS/lib.sh"
V="$TB/victims/v_api"
native=$("$V") || fail "the program failed without tprof"
[ "$("$V" active)" = "active 0" ] || fail "without tprof: tprof_active() is not 0"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" 2>"$WORK/err") || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
[ -s "$WORK/err" ] && fail "unexpected stderr: $(cat "$WORK/err")"
[ "$(LD_PRELOAD="$TPROF_SO" TPROF_OUTPUT=none "$V" active)" = "active 1" ] || fail "with tprof: tprof_active() is not 1"
jcheck "$WORK/r.json" \
  "ops['attention']['calls'] == 6" "ops['qk_matmul']['calls'] == 6" \
  "ops['attention']['flops'] == 6000 and ops['attention']['bytes'] == 2400" \
  "ops['qk_matmul']['flops'] == 30000 and ops['qk_matmul']['bytes'] == 0" \
  "ops['attention']['kind'] == 'region' and ops['attention']['source'] == 'api'" \
  "ops['attention']['self_ns'] < ops['attention']['total_ns']" \
  "ops['attention']['total_ns'] >= ops['qk_matmul']['total_ns']" \
  "abs(ops['attention']['total_ns'] - ops['attention']['self_ns'] - ops['qk_matmul']['total_ns']) <= 0.01 * ops['attention']['total_ns']" \
  "ops['qk_matmul']['self_ns'] == ops['qk_matmul']['total_ns']" \
  "len(d['ops']) == 2" \
  "d['steps']['count'] == 5 and d['steps']['name'] == 'tprof_step'" \
  "any(n.startswith('1 op ends had no matching begin') for n in d['notes'])"
exit 0
