#!/bin/sh
# The step found without TPROF_STEP (track/steps/lifeunit.c): v_graph's loop sets its input, computes
# its graph (tl_graph_compute, enclosing tl_matmul) and frees its two buffers (tl_buffer_free,
# enclosing tl_pool_release, called as often and twice in a row). The graph's compute is the
# step: it encloses nearly all the op time, and a free function is never the step (named an op
# here: by default free functions and allocators are no ops at all). The note says which op and
# why; its share of the op time varies and is replaced by X before it is compared.
# A step encloses at least 10% of the op time in outermost calls (track/steps/lifeunit.c).
. "$TS/lib.sh"
V="$TB/victims/v_graph"
native=$("$V") || fail "v_graph failed natively"
out=$(TPROF_OPS='tl_*' TPROF_OUTPUT="$WORK/g.txt" TPROF_JSON="$WORK/g.json" preload "$V") ||
  fail "v_graph failed"
[ "$out" = "$native" ] || fail "stdout changed: $out"
TPROF_OUTPUT=none TPROF_JSON="$WORK/d.json" preload "$V" > /dev/null || fail "v_graph failed (default ops)"
jcheck "$WORK/d.json" "'tl_buffer_free' not in ops and 'tl_graph_compute' in ops" \
  "m['lifetime_step'] == 'tl_graph_compute'"
jcheck "$WORK/g.json" "ops['tl_buffer_free']['calls'] == ops['tl_graph_compute']['calls'] * 2" \
  "m['lifetime_unit'] == 'detected_step' and m['lifetime_step'] == 'tl_graph_compute'" \
  "[__import__('re').sub(r'\\(\\d+% of', '(X% of', n) for n in d['notes'] if n.startswith('no TPROF_STEP')] == ['no TPROF_STEP: the step is taken to be tl_graph_compute, the op that repeats and encloses the most op time (X% of the time in outermost op calls; an allocator or free function never is); TPROF_STEP names another']"
grep -q "^step: detected tl_graph_compute (the repeating op enclosing the most op time)$" "$WORK/g.txt" ||
  fail "text step line: $(grep '^step' "$WORK/g.txt")"
# TPROF_STEP names the step: no note
TPROF_STEP=tl_buffer_free TPROF_OUTPUT=none TPROF_JSON="$WORK/s.json" preload "$V" > /dev/null ||
  fail "v_graph failed (TPROF_STEP)"
jcheck "$WORK/s.json" "m['lifetime_unit'] == 'step'" \
  "not any(n.startswith('no TPROF_STEP') for n in d['notes'])"
# A getter that repeats (two calls in a row, each enclosing its lookup) but encloses under 1% of
# the op time, beside 200 matmuls that enclose nothing: no step. The getter runs first, when it
# is all the op time there is, so this also checks that a step found early gives way once the op
# time outside it grows. Its share is tens of microseconds of ~50 ms: "<1%" with a wide margin.
native=$("$V" getter) || fail "v_graph getter failed natively"
out=$(TPROF_OUTPUT="$WORK/n.txt" TPROF_JSON="$WORK/n.json" preload "$V" getter) || fail "v_graph getter failed"
[ "$out" = "$native" ] || fail "stdout changed (getter): $out"
jcheck "$WORK/n.json" "ops['tl_option_find_float']['calls'] == 2 and ops['tl_matmul']['calls'] == 200" \
  "m['lifetime_unit'] == 'op_call' and m['lifetime_step'] is None" \
  "[n for n in d['notes'] if n.startswith('no TPROF_STEP')] == ['no TPROF_STEP and no step detected: tl_option_find_float repeats and encloses other ops, but only <1% of the time in outermost op calls (a step encloses at least 10%), so each outermost op call is the unit; TPROF_STEP names the step']"
grep -q "^unit: outermost op call (no step seen: TPROF_STEP names one)$" "$WORK/n.txt" ||
  fail "text unit line (getter): $(grep '^unit' "$WORK/n.txt")"
# With a real step beside it, the step is found and no candidate is said to be turned down.
jcheck "$WORK/g.json" "not any('no step detected' in n for n in d['notes'])"
echo "PASS step_detect"
