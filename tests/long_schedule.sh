#!/bin/sh
# TPROF_SCHEDULE=2:3:5 over 20 steps: exactly steps 5 to 9 are recorded, with exactly
# their ops (step k calls small_matmul k+1 times: 6+7+8+9+10 = 40), and the heap figures, which
# cover the whole run, are the same as without a schedule. A window the run never reaches
# (200:1:3) records nothing and says so, with a window that fits, in a note and in the verdict,
# never "no function of that name was called"; one the run ends inside (18:1:3) records step 19
# only; with no step at all (TPROF_STEP naming nothing), the note and the verdict say that.
. "$TS/lib.sh"
V=$TB/victims/v_trace
OPS='*matmul*,*forward*,*conv*'
native=$("$V" 20 1) || fail "native run failed"
out=$(tp TPROF_OPS="$OPS" TPROF_STEP=train_step TPROF_SCHEDULE=2:3:5 TPROF_JSON="$WORK/s.json" \
      TPROF_OUTPUT="$WORK/s.txt" LD_PRELOAD="$TPROF_SO" "$V" 20 1) || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out"
tp TPROF_OPS="$OPS" TPROF_STEP=train_step TPROF_JSON="$WORK/all.json" LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null ||
  fail "victim failed (no schedule)"
peak=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["memory"]["peak_bytes"])' "$WORK/all.json")
jcheck "$WORK/s.json" "d['steps']['count'] == 5" "d['steps']['window_first'] == 5" \
  "d['steps']['window_last'] == 9" "d['steps']['name'] == 'train_step'" \
  "ops['layer_forward']['calls'] == 5" "ops['small_matmul']['calls'] == 40" \
  "'conv_layer' not in ops" \
  "m['peak_bytes'] == $peak" "site('train_step')['allocs'] == 20" \
  "site('train_step')['live_at_peak_bytes'] == 1048576" "site('train_step')['live_at_exit_bytes'] == 0" \
  "site('main')['live_at_peak_bytes'] >= 3 * 65536" \
  "any('cover steps 5 to 9 only' in n for n in d['notes'])"
jcheck "$WORK/all.json" "d['steps']['count'] == 20" "ops['small_matmul']['calls'] == 220" \
  "site('train_step')['allocs'] == 20"
grep -q 'cover steps 5 to 9 only' "$WORK/s.txt" || fail "text report does not state the window"
# never reached
tp TPROF_OPS="$OPS" TPROF_STEP=train_step TPROF_SCHEDULE=200:1:3 TPROF_JSON="$WORK/u.json" \
  TPROF_OUTPUT="$WORK/u.txt" LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null 2> "$WORK/u.err" || fail "victim failed (200:1:3)"
jcheck "$WORK/u.json" "d['steps']['count'] == 0" "d['steps']['seen'] == 20" "d['ops'] == []" \
  "d['steps']['name'] == 'train_step'" "d['steps']['window_first'] == 201" "d['steps']['window_last'] == 203" \
  "'TPROF_SCHEDULE=200:1:3: the run ended after 20 steps (0 to 19), before the window (steps 201 to 203): no op or step was recorded; a window within the run records them, e.g. TPROF_SCHEDULE=16:1:3 (its last steps); the heap figures cover the whole run' in d['notes']" \
  "not any('TPROF_STEP' in n for n in d['notes'])" \
  "d['verdict']['text'].startswith('No op or step was recorded: the run ended after 20 steps, before the TPROF_SCHEDULE window (steps 201 to 203), and ops are timed only inside it (a note gives a window that fits). The heap peaks at ')"
grep -q "no function of that name" "$WORK/u.txt" "$WORK/u.err" && fail "an unreached window reported as a function never called"
tr '\n' ' ' < "$WORK/u.txt" | tr -s ' ' | grep -q "No op or step was recorded: the run ended after 20 steps, before the TPROF_SCHEDULE window (steps 201 to 203)" ||
  fail "text verdict: $(sed -n '/^VERDICT/,+6p' "$WORK/u.txt")"
# ended inside the window
tp TPROF_OPS="$OPS" TPROF_STEP=train_step TPROF_SCHEDULE=18:1:3 TPROF_JSON="$WORK/i.json" \
  LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null || fail "victim failed (18:1:3)"
jcheck "$WORK/i.json" "d['steps']['count'] == 1" "d['steps']['seen'] == 20" "ops['layer_forward']['calls'] == 1" \
  "'TPROF_SCHEDULE=18:1:3: the run ended after 20 steps, inside the window (steps 19 to 21): ops and steps cover steps 19 to 19 only; the heap figures cover the whole run' in d['notes']"
# no step at all
tp TPROF_OPS="$OPS" TPROF_STEP=no_such_step TPROF_SCHEDULE=2:3:5 TPROF_JSON="$WORK/n.json" \
  LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null 2>&1 || fail "victim failed (no step)"
jcheck "$WORK/n.json" "d['steps']['seen'] == 0" "d['steps']['name'] is None" \
  "'TPROF_SCHEDULE=2:3:5: the run made no step (a TPROF_STEP call or a tprof_step() mark), so its window (steps 5 to 9) was never reached and no op was recorded; the heap figures cover the whole run' in d['notes']" \
  "any(n.startswith('TPROF_STEP=no_such_step: no function of that name was called') for n in d['notes'])" \
  "d['verdict']['text'].startswith('No op or step was recorded: the run made no step, so the TPROF_SCHEDULE window (steps 5 to 9) was never reached, and ops are timed only inside it.')"
exit 0
