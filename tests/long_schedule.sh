#!/bin/sh
# TPROF_SCHEDULE=2:3:5 over 20 steps: exactly steps 5 to 9 are recorded, with exactly
# their ops (step k calls small_matmul k+1 times: 6+7+8+9+10 = 40), and the heap figures, which
# cover the whole run, are the same as without a schedule.
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
exit 0
