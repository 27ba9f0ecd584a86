#!/bin/sh
# BLAS functions that no loaded object defines: the wrapper does nothing (never calls NULL), says
# so once on stderr, keeps errno, and the report counts the calls. Once a BLAS is loaded (even
# RTLD_LOCAL), the same wrappers find it and compute.
. "$TS/lib.sh"
v="$TB/victims/v_blas_missing"
[ "$("$v")" = "no BLAS wrappers in this process" ] || fail "native run"
lib=${REFBLAS_SO:-}
[ -n "$lib" ] && [ -f "$lib" ] || lib=libblas.so.3
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/m.json" LD_PRELOAD="$TPROF_SO" "$v" "$lib" 2>"$WORK/err") ||
  fail "victim failed: $out"
expected="before: c = -1 -1 -1 -1, dot = 0
after: c = 19 22 43 50, dot = 70"
[ "$out" = "$expected" ] || fail "stdout: $out"
[ "$(cat "$WORK/err")" = "tprof: cblas_sgemm: real function not found
tprof: cblas_sdot: real function not found" ] || fail "stderr: $(cat "$WORK/err")"
jcheck "$WORK/m.json" \
  "'cblas_sgemm: real function not found in any loaded object; 3 calls did nothing' in d['notes']" \
  "'cblas_sdot: real function not found in any loaded object; 2 calls did nothing' in d['notes']" \
  "ops['cblas_sgemm']['calls'] == 1 and ops['cblas_sgemm']['flops'] == 16" \
  "ops['cblas_sdot']['calls'] == 1 and ops['cblas_sdot']['flops'] == 8"
