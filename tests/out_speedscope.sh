#!/bin/sh
# The trace and the folded stacks as speedscope (npm, offline, headless in Chromium) shows them:
# one frame per op with every call in it (not a frame per call), threads named once, no
# summary drawn as a call stack past the size budget, folded stacks read line for line with
# their unit line skipped, and the heap's main one tower. speedscope is installed by
# scripts/setup.sh into tests/npm of the build tree; without it or Chromium the test is skipped.
. "$TS/lib.sh"
SS=${SPEEDSCOPE_DIR:-$TB/npm/node_modules/speedscope}
# A build tree apart from the sources (build-asan/) uses the one setup.sh put in the sources.
[ -f "$SS/dist/release/index.html" ] || SS=${SPEEDSCOPE_DIR:-$TS/npm/node_modules/speedscope}
[ -f "$SS/dist/release/index.html" ] || { echo "SKIP: no speedscope in $SS (scripts/setup.sh)"; exit 77; }
command -v chromium > /dev/null || { echo "SKIP: no chromium"; exit 77; }
V=$TB/victims/v_trace
OPS='*matmul*,*forward*,*conv*'
[ -x "$TB/victims/v_blas" ] || { echo "SKIP: no BLAS victim"; exit 77; }
# Every call timed (TPROF_DEMOTE=0), so that the calls drawn are the calls counted.
tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/r.json" TPROF_TRACE="$WORK/t.json" \
   TPROF_FOLDED="$WORK/f.folded" LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null || fail "victim failed"
tp TPROF_DEMOTE=0 TPROF_JSON="$WORK/b.json" TPROF_TRACE="$WORK/b.trace" LD_PRELOAD="$TPROF_SO" \
   "$TB/victims/v_blas" > /dev/null || fail "v_blas failed"
python3 "$TS/tracecheck.py" "$WORK/b.json" trace "$WORK/b.trace" || fail "v_blas trace"
tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/m.json" TPROF_TRACE="$WORK/m.trace" \
   TPROF_TRACE_MAX=64K LD_PRELOAD="$TPROF_SO" "$V" 20 50 > /dev/null || fail "victim failed (max)"
jcheck "$WORK/m.json" "d['outputs']['trace_past_max'] > 0"
python3 "$TS/tracecheck.py" "$WORK/m.json" trace "$WORK/m.trace" --max 65536 || fail "trace (max)"
# All five files in one browser run:
# - the two threads' ops, every call of them;
# - the op-time stacks, line for line;
# - the heap: the 1 MiB activation of the step at the peak and the three 64 KiB parameter
#   blocks, all under main;
# - BLAS calls of two shapes and different GFLOP/s: still one cblas_sgemm frame of 4 calls;
# - past a 64 KiB budget the calls left out are instant events: the op frames only, no
#   "(N calls summarised)" stack.
python3 "$TS/speedscope.py" "$SS" \
  -- "$WORK/r.json" trace "$WORK/t.json" layer_forward=20 small_matmul=220 conv_layer=10 \
  -- "$WORK/r.json" folded "$WORK/f.folded" \
  -- "$WORK/r.json" folded "$WORK/f.heap.folded" "main;train_step=1048576" "main=196608" \
  -- "$WORK/b.json" trace "$WORK/b.trace" cblas_sgemm=4 cblas_dgemm=2 cblas_sgemv=4 \
     cblas_dgemv=1 sgemm_=2 dgemm_=1 sgemv_=1 dgemv_=1 \
  -- "$WORK/m.json" trace "$WORK/m.trace" || fail "speedscope"
exit 0
