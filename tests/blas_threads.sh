#!/bin/sh
# Four threads calling the BLAS at once: exact calls, FLOPs and bytes; warm-up counted once per op.
. "$TS/lib.sh"
[ -x "$TB/victims/v_blas_threads" ] || { echo "SKIP: no BLAS to build the victim"; exit 77; }
native=$(OPENBLAS_NUM_THREADS=1 "$TB/victims/v_blas_threads") || fail "native run failed"
out=$(OPENBLAS_NUM_THREADS=1 TPROF_WARMUP=3 TPROF_OUTPUT=none TPROF_JSON="$WORK/t.json" \
      LD_PRELOAD="$TPROF_SO" "$TB/victims/v_blas_threads") || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
jcheck "$WORK/t.json" "len(d['ops']) == 2" \
  "ops['cblas_sgemm']['calls'] == 1200" "ops['cblas_sgemm']['flops'] == 1200 * 2*32**3" \
  "ops['cblas_sgemm']['bytes'] == 1200 * 4*3*32*32" \
  "ops['cblas_sgemm']['warmup_calls'] == 3 and ops['cblas_sgemm']['latency_ns']['n'] == 1197" \
  "ops['cblas_sgemm']['shapes'][0]['calls'] == 1200" \
  "ops['cblas_dgemv']['calls'] == 1200" "ops['cblas_dgemv']['flops'] == 1200 * 2*24*16" \
  "ops['cblas_dgemv']['bytes'] == 1200 * 8*(24*16 + 16 + 24)" \
  "ops['cblas_dgemv']['warmup_calls'] == 3 and ops['cblas_dgemv']['latency_ns']['n'] == 1197" \
  "ops['cblas_sgemm']['self_ns'] == ops['cblas_sgemm']['total_ns']"
# A threaded OpenBLAS called from one thread: its pool's workers compute inside the calls and
# reach no hook, yet they ran; OpenBLAS starts min(OPENBLAS_NUM_THREADS, CPUs) threads in all.
# It is named among the runtimes loaded (the CPU verdict's advice names OPENBLAS_NUM_THREADS).
lib=$(ldd "$TB/victims/v_blas" 2> /dev/null | awk '/libopenblas/ { print $3; exit }')
case $(readlink -f "${lib:-/none}") in
  *openblas-pthread*)
    n=$(nproc); want=$(( n < 2 ? n : 2 ))
    OPENBLAS_NUM_THREADS=2 TPROF_OUTPUT=none TPROF_JSON="$WORK/pool.json" LD_PRELOAD="$TPROF_SO" \
      "$TB/victims/v_blas" > /dev/null || fail "victim failed (threaded OpenBLAS)"
    jcheck "$WORK/pool.json" "d['program']['threads'] == $want" \
      "d['program']['thread_runtimes'] == 'openblas'" \
      "all(o['wall_ns'] <= o['total_ns'] and o['self_wall_share'] <= 1 for o in d['ops'])" ;;
esac
exit 0
