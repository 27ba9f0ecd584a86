#!/bin/sh
# The trace and the folded stacks as speedscope (npm, offline, headless in Chromium) shows them:
# one frame per op with every call in it (not a frame per call), threads named once, no
# summary drawn as a call stack past the size budget, folded stacks read line for line with
# their unit line skipped, and the heap's main one tower. speedscope is installed by
# scripts/setup.sh into tests/npm of the build tree; without it or Chromium the test is skipped.
. "$TS/lib.sh"
SS=${SPEEDSCOPE_DIR:-$TB/npm/node_modules/speedscope}
[ -f "$SS/dist/release/index.html" ] || { echo "SKIP: no speedscope in $SS (scripts/setup.sh)"; exit 77; }
command -v chromium > /dev/null || { echo "SKIP: no chromium"; exit 77; }
V=$TB/victims/v_trace
OPS='*matmul*,*forward*,*conv*'
# Every call timed (TPROF_DEMOTE=0), so that the calls drawn are the calls counted.
tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/r.json" TPROF_TRACE="$WORK/t.json" \
   TPROF_FOLDED="$WORK/f.folded" LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null || fail "victim failed"
python3 "$TS/speedscope.py" "$SS" "$WORK/r.json" trace "$WORK/t.json" \
  layer_forward=20 small_matmul=220 conv_layer=10 || fail "trace in speedscope"
python3 "$TS/speedscope.py" "$SS" "$WORK/r.json" folded "$WORK/f.folded" || fail "op-time folded in speedscope"
# The 1 MiB activation of the step at the peak, the three 64 KiB parameter blocks, all under main.
python3 "$TS/speedscope.py" "$SS" "$WORK/r.json" folded "$WORK/f.heap.folded" \
  "main;train_step=1048576" "main=196608" || fail "heap folded in speedscope"
# BLAS calls of two shapes and different GFLOP/s: still one cblas_sgemm frame of 4 calls.
if [ -x "$TB/victims/v_blas" ]; then
  tp TPROF_DEMOTE=0 TPROF_JSON="$WORK/b.json" TPROF_TRACE="$WORK/b.trace" LD_PRELOAD="$TPROF_SO" \
     "$TB/victims/v_blas" > /dev/null || fail "v_blas failed"
  python3 "$TS/tracecheck.py" "$WORK/b.json" trace "$WORK/b.trace" || fail "v_blas trace"
  python3 "$TS/speedscope.py" "$SS" "$WORK/b.json" trace "$WORK/b.trace" cblas_sgemm=4 cblas_dgemm=2 \
    cblas_sgemv=4 cblas_dgemv=1 sgemm_=2 dgemm_=1 sgemv_=1 dgemv_=1 || fail "v_blas trace in speedscope"
fi
# Past a 64 KiB budget the calls left out are instant events: speedscope shows the op frames
# only, no "(N calls summarised)" stack.
tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/m.json" TPROF_TRACE="$WORK/m.trace" \
   TPROF_TRACE_MAX=64K LD_PRELOAD="$TPROF_SO" "$V" 20 50 > /dev/null || fail "victim failed (max)"
jcheck "$WORK/m.json" "d['outputs']['trace_past_max'] > 0"
python3 "$TS/tracecheck.py" "$WORK/m.json" trace "$WORK/m.trace" --max 65536 || fail "trace (max)"
python3 "$TS/speedscope.py" "$SS" "$WORK/m.json" trace "$WORK/m.trace" || fail "budget trace in speedscope"
exit 0
