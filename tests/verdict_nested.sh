#!/bin/sh
# The FLOPs on gemm (a TPROF_WORK entry), the time on gemm_nn, which gemm calls through gemm_cpu
# and which has no FLOPs (tests/victims/v_nested_work.c; darknet built -O1, whose gemm_cpu has none
# either): the verdict is gemm's, on its total
# time, with its FLOP rate and bound, and says where its time went. The bound is fixed by the
# FLOP and byte counts against the given peaks (intensity 2 x 96^3 / (4 x 3 x 96^2) = 16 FLOP/byte,
# over the ridge of 10); the shares and speed-ups depend on the machine and are matched loosely.
. "$TS/lib.sh"
V="$TB/victims/v_nested_work"
native=$("$V") || fail "native run failed"
out=$(TPROF_OPS='gemm*' TPROF_WORK='gemm: flops=2*m*n*k bytes=4*(m*k+k*n+m*n)' \
      TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=10 TPROF_HOOK_NS=0 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/n.json" LD_PRELOAD="$TPROF_SO" "$V" 2>"$WORK/err") ||
  fail "victim failed: $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
jcheck "$WORK/n.json" \
  "ops['gemm']['calls'] == 20 and ops['gemm_nn']['calls'] == 20" \
  "ops['gemm']['flops'] == 20 * 2 * 96 ** 3 and ops['gemm_nn']['flops'] == 0" \
  "ops['gemm_nn']['parent'] == 'gemm_cpu' and ops['gemm_cpu']['parent'] == 'gemm'" \
  "ops['gemm']['parent'] is None and ops['gemm_cpu']['flops'] == 0" \
  "ops['gemm_nn']['self_ns'] > ops['gemm']['self_ns']" \
  "d['verdict']['op'] == 'gemm' and d['verdict']['bound'] == 'compute'" \
  "__import__('re').match(r\"gemm takes (\\d+%|<1%) of the time \\(its time in gemm_nn, which has no FLOPs of its own: (\\d+%|<1%)\\) and runs at (\\d+%|<1%) of what this machine can do at its arithmetic intensity \\(compute-bound[^)]*\\); a 2x faster gemm makes the program \\d+\\.\\d\\dx faster(, an infinitely fast one \\d+\\.\\d\\dx\\.|; it ran all the time, so what an infinitely fast one gives has no bound here\\.)\", d['verdict']['text'])"
