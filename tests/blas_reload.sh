#!/bin/sh
# A plugin's RTLD_LOCAL BLAS unloaded and the plugin loaded again (tests/victims/v_blas_reload.c):
# the wrappers' cached real functions were in the BLAS that dlclose unloaded; tprof keeps no
# library loaded, so it must forget them then and find the real functions again in the BLAS the
# second load brings: no crash, same output, exact counts over both loads. (tests/dl_reload.sh
# checks that the library is really unloaded and loaded anew.)
. "$TS/lib.sh"
plug="$TB/victims/libtpblasplug.so"
[ -f "$plug" ] || { echo "SKIP: no BLAS to build the plugin"; exit 77; }
[ -n "${REFBLAS_SO:-}" ] && [ -f "$REFBLAS_SO" ] || { echo "SKIP: no reference BLAS"; exit 77; }
v="$TB/victims/v_blas_reload"
native=$(OPENBLAS_NUM_THREADS=1 "$v" "$REFBLAS_SO" "$plug") || fail "native run failed"
out=$(OPENBLAS_NUM_THREADS=1 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
      "$v" "$REFBLAS_SO" "$plug" 2>"$WORK/err") || fail "victim failed (status $?): $out"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
jcheck "$WORK/r.json" "len(d['ops']) == 3" \
  "ops['cblas_sgemm']['calls'] == 10" "ops['cblas_sgemm']['flops'] == 10 * 2*16*8*4" \
  "ops['dgemv_']['calls'] == 2" "ops['cblas_ddot']['calls'] == 2"
