#!/bin/sh
# A threaded OpenBLAS (its own pool of worker threads, OPENBLAS_NUM_THREADS=2) under tprof: each
# cblas_sgemm is counted once with its exact FLOPs, bytes and shape, however OpenBLAS splits it;
# the program's heap is exact; its output (products included) and exit status are unchanged.
. "$TS/lib.sh"
V=$TB/victims/v_blas_pool
[ -x "$V" ] || { echo "SKIP: no BLAS to build the victim"; exit 77; }
export OPENBLAS_NUM_THREADS=2
native=$("$V") || fail "native run failed: $?"
case $native in
  "threads 1"*) echo "SKIP: the BLAS here runs no threads of its own ($native)"; exit 77 ;;
esac
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed: $?"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
# 5 calls of m = n = k = 384: 2*384^3 FLOPs and 4 * 3 * 384^2 bytes (beta = 0) each.
jcheck "$WORK/r.json" "ops['cblas_sgemm']['calls'] == 5" \
  "ops['cblas_sgemm']['flops'] == 5 * 2 * 384**3" "ops['cblas_sgemm']['bytes'] == 5 * 4 * 3 * 384**2" \
  "[(s['m'], s['n'], s['k'], s['calls']) for s in ops['cblas_sgemm']['shapes']] == [(384, 384, 384, 5)]" \
  "site('operand')['allocs'] == 15" "site('operand')['bytes'] == 15 * 4 * 384**2" \
  "site('operand')['live_at_exit_bytes'] == 0" "site('operand')['peak_live_bytes'] == 3 * 4 * 384**2"
exit 0
