#!/bin/sh
# Every BLAS wrapper: exact calls, FLOPs, bytes and shapes, against OpenBLAS and against the
# reference BLAS (whose cblas_sgemm calls sgemm_: counted once).
. "$TS/lib.sh"
[ -x "$TB/victims/v_blas" ] || { echo "SKIP: no BLAS to build the victim"; exit 77; }
check() {
  jcheck "$1" \
    "ops['cblas_sgemm']['calls'] == 4" "ops['cblas_sgemm']['flops'] == 3 * 65536 + 12000" \
    "ops['cblas_sgemm']['bytes'] == 3 * 14336 + 5200" "ops['cblas_sgemm']['kind'] == 'matmul'" \
    "ops['cblas_sgemm']['source'] == 'blas'" "len(ops['cblas_sgemm']['shapes']) == 2" \
    "[ (s['m'], s['n'], s['k'], s['transa'], s['transb'], s['layout'], s['calls']) for s in ops['cblas_sgemm']['shapes'] if s['m'] == 64] == [(64, 32, 16, 'N', 'N', 'R', 3)]" \
    "[ (s['transa'], s['layout'], s['flops']) for s in ops['cblas_sgemm']['shapes'] if s['m'] == 10] == [('T', 'C', 12000)]" \
    "ops['cblas_dgemm']['calls'] == 2" "ops['cblas_dgemm']['flops'] == 2048" "ops['cblas_dgemm']['bytes'] == 4096" \
    "ops['cblas_sgemv']['calls'] == 4" "ops['cblas_sgemv']['flops'] == 40000" "ops['cblas_sgemv']['bytes'] == 82400" \
    "ops['cblas_sgemv']['kind'] == 'gemv'" \
    "ops['cblas_dgemv']['calls'] == 1" "ops['cblas_dgemv']['flops'] == 2400" "ops['cblas_dgemv']['bytes'] == 10480" \
    "ops['sgemm_']['calls'] == 2" "ops['sgemm_']['flops'] == 840" "ops['sgemm_']['bytes'] == 856" \
    "ops['sgemm_']['shapes'][0]['layout'] == 'C'" \
    "ops['dgemm_']['calls'] == 1" "ops['dgemm_']['flops'] == 120" "ops['dgemm_']['bytes'] == 472" \
    "ops['dgemm_']['shapes'][0]['transa'] == 'T'" \
    "ops['sgemv_']['calls'] == 1" "ops['sgemv_']['flops'] == 198" "ops['sgemv_']['bytes'] == 476" \
    "ops['dgemv_']['calls'] == 1" "ops['dgemv_']['flops'] == 312" "ops['dgemv_']['bytes'] == 1552" \
    "len(d['ops']) == 8" \
    "ops['cblas_sgemm']['warmup_calls'] == 1 and ops['cblas_sgemm']['latency_ns']['n'] == 3" \
    "ops['cblas_sgemm']['total_ns'] >= ops['cblas_sgemm']['latency_ns']['max']"
}
native=$("$TB/victims/v_blas") || fail "native run failed"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/open.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_blas") || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
check "$WORK/open.json"
if [ -n "${REFBLAS_SO:-}" ] && [ -f "$REFBLAS_SO" ]; then
  refdir=$(dirname "$REFBLAS_SO")
  native=$(LD_LIBRARY_PATH="$refdir" "$TB/victims/v_blas") || fail "native run on the reference BLAS failed"
  out=$(LD_LIBRARY_PATH="$refdir" TPROF_OUTPUT=none TPROF_JSON="$WORK/ref.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_blas") || fail "victim failed on the reference BLAS"
  [ "$out" = "$native" ] || fail "stdout changed on the reference BLAS: $out vs $native"
  LD_LIBRARY_PATH="$refdir" ldd "$TB/victims/v_blas" | grep -q "$refdir" || fail "the reference BLAS was not used"
  check "$WORK/ref.json"
else
  echo "note: reference BLAS not found; only OpenBLAS checked"
fi
