#!/bin/sh
# 4 threads: concurrent first decisions for the same functions, then exact totals for
# instrumented ops (nested) and for ops hooked through the PLT (tests/victims/v_cyg_threads.c),
# also when the tiny ones are demoted to counts.
. "$TS/lib.sh"
# libtpop.so's gemm stand-ins get their work as any library's functions would: from a work file.
export TPROF_WORK_FILE="$TS/victims/libtpop.work"
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
# Demoted while 4 threads call them (TPROF_HOOK_NS=10000 with TPROF_DEMOTE=100: any call under
# 1 ms on average): every call still counted; at least 65 of them timed (the first and the 64
# judged), and more that the other threads began before the demotion was stored: as many as they
# make while the thread that judged the 65th is off its CPU, so no upper bound holds on a loaded
# machine (one run beside a CI build timed 71); tpop_gemm, of known signature, stays timed for its
# FLOPs.
out=$(TPROF_OPS='*conv*,*norm*,*gemm*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/d.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed (demoted)"
[ "$out" = "$native" ] || fail "stdout changed (demoted): $out vs $native"
jcheck "$WORK/d.json" \
  "ops['thread_conv']['calls'] == 4 * 500 * 2 and ops['thread_conv']['demoted']" \
  "0 < ops['thread_conv']['counted_calls'] <= 4 * 500 * 2 - 65" \
  "ops['batch_norm']['calls'] == 4 * 500 and ops['batch_norm']['demoted']" \
  "0 < ops['batch_norm']['counted_calls'] <= 4 * 500 - 65" \
  "ops['tpop_gemm']['calls'] == 4 * 500 and ops['tpop_gemm']['flops'] == 4 * 500 * 16" \
  "not ops['tpop_gemm']['demoted'] and ops['tpop_gemm']['counted_calls'] == 0"
exit 0
