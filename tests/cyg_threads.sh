#!/bin/sh
# 4 threads: concurrent first decisions for the same functions, then exact totals for
# instrumented ops (nested) and for ops hooked through the PLT (tests/victims/v_cyg_threads.c).
. "$TS/lib.sh"
V="$TB/victims/v_cyg_threads"
native=$("$V") || fail "native run failed"
for k in 1 2 3; do
  out=$(TPROF_OPS='*conv*,*norm*,*gemm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/r$k.json" \
        LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed"
  [ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
  jcheck "$WORK/r$k.json" \
    "ops['thread_conv']['calls'] == 4 * 500 * 2" "ops['batch_norm']['calls'] == 4 * 500" \
    "ops['tpop_gemm']['calls'] == 4 * 500 and ops['tpop_gemm']['flops'] == 4 * 500 * 16" \
    "ops['tpop_gemm']['source'] == 'plt' and ops['thread_conv']['source'] == 'instrumented'" \
    "ops['batch_norm']['self_ns'] < ops['batch_norm']['total_ns']" \
    "'helper' not in ops and 'worker' not in ops" \
    "not any('no matching begin' in n or 'left by' in n for n in d['notes'])"
done
exit 0
