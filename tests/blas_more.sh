#!/bin/sh
# Complex gemm/gemv, symm, syrk, trmm, trsm, dot and axpy through CBLAS and Fortran: exact calls,
# FLOPs, bytes and shapes (tests/victims/v_blas_more.c), against OpenBLAS and the reference BLAS,
# whose CBLAS calls the Fortran routines through its own PLT (each call counted once).
. "$TS/lib.sh"
[ -x "$TB/victims/v_blas_more" ] || { echo "SKIP: no BLAS to build the victim"; exit 77; }
# name calls FLOPs bytes: the formulas of docs/ops.md with the victim's arguments.
# Complex: 8 FLOPs per multiply-add, 8 (c) or 16 (z) bytes per element.
expect='
cblas_cgemm 2 '$((2 * 8*4*5*6))' '$((8*(24+30+20) + 8*(24+30+20+20)))'
cblas_zgemm 1 '$((8*3*3*3))' '$((16*(9+9+9)))'
cblas_cgemv 1 '$((8*7*9))' '$((8*(63+9+7+7)))'
cblas_zgemv 1 '$((8*6*4))' '$((16*(24+6+4)))'
cblas_ssymm 1 '$((2*10*10*20))' '$((4*(10*11/2 + 2*10*20)))'
cblas_dsymm 1 '$((2*5*6*5))' '$((8*(5*6/2 + 2*6*5 + 6*5)))'
cblas_ssyrk 1 '$((4*8*9))' '$((4*(8*4 + 8*9/2)))'
cblas_dsyrk 1 '$((7*5*6))' '$((8*(5*7 + 2*(5*6/2))))'
cblas_strmm 1 '$((6*6*4))' '$((4*(6*7/2 + 2*6*4)))'
cblas_dtrmm 1 '$((5*3*5))' '$((8*(5*6/2 + 2*3*5)))'
cblas_strsm 1 '$((4*4*3))' '$((4*(4*5/2 + 2*4*3)))'
cblas_dtrsm 2 '$((2 * 2*5*2))' '$((2 * 8*(2*3/2 + 2*5*2)))'
cblas_sdot 3 '$((3 * 2*1000))' '$((3 * 4*2*1000))'
cblas_ddot 1 '$((2*10))' '$((8*2*10))'
cblas_saxpy 1 '$((2*500))' '$((4*3*500))'
cblas_daxpy 1 '$((2*7))' '$((8*3*7))'
cgemm_ 1 '$((8*2*3*4))' '$((8*(8+12+6)))'
zgemm_ 1 '$((8*3*2*2))' '$((16*(6+4+6+6)))'
cgemv_ 1 '$((8*5*3))' '$((8*(15+5+3)))'
zgemv_ 1 '$((8*2*2))' '$((16*(4+2+2+2)))'
ssymm_ 1 '$((2*4*3*4))' '$((4*(4*5/2 + 2*3*4)))'
dsymm_ 1 '$((2*4*4*2))' '$((8*(4*5/2 + 2*4*2 + 4*2)))'
ssyrk_ 1 '$((5*3*4))' '$((4*(3*5 + 3*4/2)))'
dsyrk_ 1 '$((2*4*5))' '$((8*(4*2 + 2*(4*5/2))))'
strmm_ 1 '$((3*3*2))' '$((4*(3*4/2 + 2*3*2)))'
dtrmm_ 1 '$((3*2*3))' '$((8*(3*4/2 + 2*2*3)))'
strsm_ 1 '$((3*4*3))' '$((4*(3*4/2 + 2*4*3)))'
dtrsm_ 1 '$((3*3*3))' '$((8*(3*4/2 + 2*3*3)))'
saxpy_ 1 '$((2*100))' '$((4*3*100))'
daxpy_ 1 '$((2*9))' '$((8*3*9))'
ddot_ 1 '$((2*50))' '$((8*2*50))'
'
check() {
  set --  "$1" "len(d['ops']) == $(echo "$expect" | grep -c .)"
  exprs=$(echo "$expect" | awk 'NF == 4 { printf "ops[\x27%s\x27][\x27calls\x27] == %s and ops[\x27%s\x27][\x27flops\x27] == %s and ops[\x27%s\x27][\x27bytes\x27] == %s and ops[\x27%s\x27][\x27source\x27] == \x27blas\x27\n", $1, $2, $1, $3, $1, $4, $1 }')
  printf '%s\n' "$exprs" > "$WORK/exprs"
  while IFS= read -r e; do set -- "$@" "$e"; done < "$WORK/exprs"
  jcheck "$@" \
    "[(s['desc'], s['calls'], s['transb']) for s in ops['cblas_cgemm']['shapes']] == [('m=4 n=5 k=6 NC col', 2, 'C')]" \
    "[s['desc'] for s in ops['cblas_dsymm']['shapes']] == ['m=6 n=5 col right lower']" \
    "[s['desc'] for s in ops['cblas_ssyrk']['shapes']] == ['m=8 n=8 k=4 N row upper']" \
    "[s['desc'] for s in ops['cblas_dtrsm']['shapes']] == ['m=5 n=2 T row right lower']" \
    "[(s['desc'], s['layout']) for s in ops['cblas_sdot']['shapes']] == [('n=1000', None)]" \
    "[s['desc'] for s in ops['dsymm_']['shapes']] == ['m=4 n=2 col left lower']" \
    "[s['desc'] for s in ops['strmm_']['shapes']] == ['m=3 n=2 T col left upper']" \
    "[s['desc'] for s in ops['zgemm_']['shapes']] == ['m=3 n=2 k=2 CN col']" \
    "ops['cblas_sdot']['kind'] == 'dot' and ops['daxpy_']['kind'] == 'axpy' and ops['cblas_strsm']['kind'] == 'matmul'"
}
run() { # label, then env assignments for both runs
  label=$1; shift
  native=$(env "$@" "$TB/victims/v_blas_more") || fail "$label: native run failed"
  out=$(env "$@" TPROF_OUTPUT=none TPROF_JSON="$WORK/$label.json" LD_PRELOAD="$TPROF_SO" \
        "$TB/victims/v_blas_more" 2>"$WORK/$label.err") || fail "$label: victim failed"
  [ "$out" = "$native" ] || fail "$label: stdout changed: $out vs $native"
  [ ! -s "$WORK/$label.err" ] || fail "$label: stderr: $(cat "$WORK/$label.err")"
  check "$WORK/$label.json"
}
run openblas OPENBLAS_NUM_THREADS=1
if [ -n "${REFBLAS_SO:-}" ] && [ -f "$REFBLAS_SO" ]; then
  refdir=$(dirname "$REFBLAS_SO")
  LD_LIBRARY_PATH="$refdir" ldd "$TB/victims/v_blas_more" | grep -q "$refdir" || fail "the reference BLAS was not used"
  run reference LD_LIBRARY_PATH="$refdir"
else
  echo "note: reference BLAS not found; only OpenBLAS checked"
fi
# An op table with room for 16 ops: the 16 CBLAS ops, called first, are recorded exactly; each of
# the 15 Fortran ones is refused once (its wrapper does not ask again) and the report is partial.
# TPROF_PLT=0, so no PLT hook takes a place in the table.
native=$(OPENBLAS_NUM_THREADS=1 "$TB/victims/v_blas_more") || fail "native run failed"
out=$(OPENBLAS_NUM_THREADS=1 TPROF_PLT=0 TPROF_MAX_OPS=16 TPROF_OUTPUT=none \
      TPROF_JSON="$WORK/full.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_blas_more" 2>"$WORK/full.err") ||
  fail "full table: victim failed"
[ "$out" = "$native" ] || fail "full table: stdout changed: $out vs $native"
[ ! -s "$WORK/full.err" ] || fail "full table: stderr: $(cat "$WORK/full.err")"
cblas=$(echo "$expect" | grep '^cblas_')
jcheck "$WORK/full.json" "len(d['ops']) == 16" "d['partial'] == True" \
  "sorted(o['name'] for o in d['ops']) == sorted('''$cblas'''.split()[0::4])" \
  "sum(o['calls'] for o in d['ops']) == sum(map(int, '''$cblas'''.split()[1::4]))" \
  "any(n.startswith('op table full (TPROF_MAX_OPS=16): 15 ops were not recorded (15 refused lookups): ') for n in d['notes'])"
