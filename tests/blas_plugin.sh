#!/bin/sh
# A BLAS loaded RTLD_LOCAL by a plugin: dlsym(RTLD_NEXT) cannot see it, yet the plugin's PLT calls
# reach tprof's wrappers, which must find the real functions among the loaded objects: no crash,
# same output, exact counts. With OpenBLAS and with the reference BLAS (whose cblas_sgemm then
# calls sgemm_ through tprof too: counted once).
. "$TS/lib.sh"
plug="$TB/victims/libtpblasplug.so"
[ -f "$plug" ] || { echo "SKIP: no BLAS to build the plugin"; exit 77; }
ldd "$TB/victims/v_blas_plugin" | grep -q blas && fail "the victim itself must not link a BLAS"
run() {
  label=$1; shift
  native=$(env "$@" "$TB/victims/v_blas_plugin" "$plug") || fail "$label: native run failed"
  out=$(env "$@" TPROF_OUTPUT=none TPROF_JSON="$WORK/$label.json" LD_PRELOAD="$TPROF_SO" \
        "$TB/victims/v_blas_plugin" "$plug" 2>"$WORK/$label.err") || fail "$label: victim failed"
  [ "$out" = "$native" ] || fail "$label: stdout changed: $out vs $native"
  [ ! -s "$WORK/$label.err" ] || fail "$label: stderr: $(cat "$WORK/$label.err")"
  jcheck "$WORK/$label.json" "len(d['ops']) == 3" \
    "ops['cblas_sgemm']['calls'] == 5" "ops['cblas_sgemm']['flops'] == 5 * 2*16*8*4" \
    "ops['cblas_sgemm']['bytes'] == 5 * 4*(16*4 + 4*8 + 16*8)" \
    "[(s['m'], s['n'], s['k'], s['layout']) for s in ops['cblas_sgemm']['shapes']] == [(16, 8, 4, 'R')]" \
    "ops['dgemv_']['calls'] == 1" "ops['dgemv_']['flops'] == 2*8*8" \
    "ops['cblas_ddot']['calls'] == 1" "ops['cblas_ddot']['flops'] == 2*64" \
    "not any('real function not found' in n for n in d['notes'])"
}
run openblas OPENBLAS_NUM_THREADS=1
if [ -n "${REFBLAS_SO:-}" ] && [ -f "$REFBLAS_SO" ]; then
  refdir=$(dirname "$REFBLAS_SO")
  LD_LIBRARY_PATH="$refdir" ldd "$plug" | grep -q "$refdir" || fail "the reference BLAS was not used"
  run reference LD_LIBRARY_PATH="$refdir"
fi
