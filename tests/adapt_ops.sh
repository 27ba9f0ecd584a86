#!/bin/sh
# Ops kept apart and ops demoted (tests/victims/v_adapt.c, libtpprefix.c).
# Names that begin with another op's name are ops of their own, each its own row with exact
# calls, instrumented (net_train_step / net_train_step_rprop, gemm / gemm_nn / gemm_nt) and
# through the PLT (lp_*), also when one of them is TPROF_STEP.
# A tiny function called 1000 times is demoted after exactly 65 timed calls (the first left out,
# 64 judged): 935 counted, instrumented (tiny_norm) and through the PLT (lp_tiny_norm), listed in
# the notes; a 2 ms function stays timed. TPROF_HOOK_NS=10000 with TPROF_DEMOTE=100 puts the line
# at 1 ms a call, far from both. TPROF_DEMOTE=0: nothing demoted. A function whose judged calls
# were a quarter stretched to 5 ms (what preemptions do on a loaded machine) is demoted in 10 runs
# of 10: their median is under the line, their mean over it.
. "$TS/lib.sh"
V="$TB/victims/v_adapt"
native=$("$V" prefix) || fail "native run failed"
OPS='gemm,gemm_nn,gemm_nt,net_train_step,net_train_step_rprop'
OPS="$OPS,lp_gemm,lp_gemm_nn,lp_gemm_nt,lp_train_step,lp_train_step_rprop"
# TPROF_HOOK_NS=0: no measured hook cost is taken out of the times, so that an op's total holds
# its nested ops' totals by construction (nested intervals of one clock), whatever this machine's
# speed; with a correction, an over-estimated cost could take more out of the outer op.
out=$(TPROF_OPS="$OPS" TPROF_STEP=lp_train_step TPROF_HOOK_NS=0 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/p.json" LD_PRELOAD="$TPROF_SO" "$V" prefix 2>"$WORK/err") || fail "victim failed: $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
for p in '' lp_; do
  src=instrumented
  [ -n "$p" ] && src=plt
  jcheck "$WORK/p.json" \
    "ops['${p}gemm']['calls'] == 4 and ops['${p}gemm_nn']['calls'] == 8" \
    "ops['${p}gemm_nt']['calls'] == 4" \
    "ops['${p}net_train_step' if '$p' == '' else 'lp_train_step']['calls'] == 4" \
    "ops['${p}net_train_step_rprop' if '$p' == '' else 'lp_train_step_rprop']['calls'] == 8" \
    "ops['${p}gemm']['source'] == '$src' and ops['${p}gemm_nn']['source'] == '$src'" \
    "ops['${p}gemm']['total_ns'] >= ops['${p}gemm_nn']['total_ns'] + ops['${p}gemm_nt']['total_ns']" \
    "ops['${p}gemm']['self_ns'] <= ops['${p}gemm']['total_ns']"
done
jcheck "$WORK/p.json" "len(d['ops']) == 10" "d['steps']['count'] == 4" \
  "not any(o['demoted'] for o in d['ops'])"

native=$("$V" tiny) || fail "native run failed (tiny)"
out=$(TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/t.json" LD_PRELOAD="$TPROF_SO" "$V" tiny 2>"$WORK/err") ||
  fail "victim failed (tiny): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (tiny): $out vs $native"
jcheck "$WORK/t.json" \
  "ops['tiny_norm']['calls'] == 1000 and ops['tiny_norm']['demoted']" \
  "ops['tiny_norm']['counted_calls'] == 935 and ops['tiny_norm']['source'] == 'instrumented'" \
  "ops['lp_tiny_norm']['calls'] == 1000 and ops['lp_tiny_norm']['demoted']" \
  "ops['lp_tiny_norm']['counted_calls'] == 935 and ops['lp_tiny_norm']['source'] == 'plt'" \
  "ops['slow_conv']['calls'] == 3 and not ops['slow_conv']['demoted']" \
  "ops['slow_conv']['counted_calls'] == 0" \
  "any(n.startswith('tiny_norm: 1000 calls of ~') and 'counted, not timed' in n for n in d['notes'])" \
  "any(n.startswith('lp_tiny_norm: 1000 calls of ~') for n in d['notes'])" \
  "ops['tiny_norm']['counted_est_ns'] > 0 and ops['lp_tiny_norm']['counted_est_ns'] > 0" \
  "ops['slow_conv']['counted_est_ns'] == 0"
# Called from no op, tiny_norm's estimate is its counted calls times the median of its judged
# calls, unbounded.
jcheck "$WORK/t.json" "ops['tiny_norm']['counted_est_method'] == 'median'" \
  "ops['slow_conv']['counted_est_method'] is None"
# Every counted call of tiny_norm runs in nest_conv, whose self time holds their time: the
# estimate is never more than it. With 10 us a hook taken out for each of the 5935 counted calls,
# nest_conv's self time is 0 whatever the machine's speed (its calls take far less than 59 ms),
# so the bound is always taken.
native=$("$V" nested) || fail "native run failed (nested)"
out=$(TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/b.json" LD_PRELOAD="$TPROF_SO" "$V" nested 2>"$WORK/err") ||
  fail "victim failed (nested): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (nested): $out vs $native"
jcheck "$WORK/b.json" \
  "ops['tiny_norm']['calls'] == 6000 and ops['tiny_norm']['counted_calls'] == 5935" \
  "ops['nest_conv']['calls'] == 3 and not ops['nest_conv']['demoted']" \
  "ops['tiny_norm']['counted_est_ns'] <= ops['nest_conv']['self_ns'] <= ops['nest_conv']['total_ns']" \
  "ops['tiny_norm']['counted_est_method'] == \"median, bounded by the enclosing ops' self time\"" \
  "any(n.startswith('tiny_norm: 6000 calls of ~') and n.endswith(\"(their time is their callers'; their estimated time, more than the self time of nest_conv, is taken to be that self time; TPROF_DEMOTE)\") for n in d['notes'])"
# The text and HTML tables mark the demoted rows: an estimated total, "counted" for the self time
# (it is the callers'), and the legend that says so.
TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT="$WORK/t.txt" \
  TPROF_HTML="$WORK/t.html" LD_PRELOAD="$TPROF_SO" "$V" tiny > /dev/null 2>&1 || fail "victim failed (tables)"
for op in tiny_norm lp_tiny_norm; do
  grep -Eq "^$op +norm +1\.00k +~[0-9.]+ [mun]?s +counted +- " "$WORK/t.txt" ||
    fail "text row of $op: $(grep "^$op" "$WORK/t.txt")"
done
grep -Eq "^slow_conv +conv +3 +[0-9.]+ ms +[0-9.]+ ms" "$WORK/t.txt" || fail "text row of slow_conv"
legend="counted: an op too short to time (TPROF_DEMOTE): its calls after the first 65 were counted, not timed, so its time is in its callers' self time; its total, ~, is an estimate: its calls times the median of its judged calls, at most the self time of the ops its counted calls ran in."
tr '\n' ' ' < "$WORK/t.txt" | tr -s ' ' | grep -qF "$legend" || fail "text legend of counted ops"
grep -qF "<p class=\"note\" id=\"counted-legend\">$legend</p>" "$WORK/t.html" || fail "HTML legend of counted ops"
grep -q '<td data-v="-1">counted</td>' "$WORK/t.html" || fail "HTML counted cell"
for i in 1 2 3 4 5 6 7 8 9 10; do
  TPROF_OPS='*norm*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
    TPROF_JSON="$WORK/n$i.json" LD_PRELOAD="$TPROF_SO" "$V" noisy > /dev/null 2>"$WORK/err" ||
    fail "victim failed (noisy, run $i): $(cat "$WORK/err")"
  jcheck "$WORK/n$i.json" "ops['noisy_norm']['calls'] == 1000 and ops['noisy_norm']['demoted']" \
    "ops['noisy_norm']['counted_calls'] == 935"
done
out=$(TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=0 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/off.json" LD_PRELOAD="$TPROF_SO" "$V" tiny 2>"$WORK/err") ||
  fail "victim failed (TPROF_DEMOTE=0): $(cat "$WORK/err")"
jcheck "$WORK/off.json" \
  "ops['tiny_norm']['calls'] == 1000 and ops['lp_tiny_norm']['calls'] == 1000" \
  "not any(o['demoted'] or o['counted_calls'] for o in d['ops'])" \
  "not any('counted, not timed' in n for n in d['notes'])"

# 4 threads, each in thr_conv calling lp_tiny_norm 20000 times through the PLT: demoted once
# (judged on the first calls of any thread), then counted in each thread's own counters; the
# total is exact. Each counted call is taken out of thr_conv like a hook of TPROF_HOOK_NS=10000:
# well over 19000 counted calls x 10 us = 190 ms per thr_conv call, against a real time of well
# under a millisecond, so its time comes out 0 (it kept the counting's cost before).
out=$(TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/thr.json" LD_PRELOAD="$TPROF_SO" "$V" threads 2>"$WORK/err") ||
  fail "victim failed (threads): $(cat "$WORK/err")"
[ "$out" = "threads 4 x 20000 calls" ] || fail "stdout changed (threads): $out"
jcheck "$WORK/thr.json" \
  "ops['lp_tiny_norm']['calls'] == 80000 and ops['lp_tiny_norm']['demoted']" \
  "ops['lp_tiny_norm']['source'] == 'plt'" \
  "80000 - 4 * 65 <= ops['lp_tiny_norm']['counted_calls'] < 80000" \
  "ops['thr_conv']['calls'] == 4 and ops['thr_conv']['total_ns'] == 0"
exit 0
