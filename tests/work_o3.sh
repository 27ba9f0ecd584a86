#!/bin/sh
# TPROF_WORK at -O2 and -O3, kernels inlined into their callers (tests/victims/v_work_o3.c):
# sizes the compiler keeps only as a computation over registers and stack slots ("r13 * 5", "the
# int in a stack slot, sign-extended, times 6"), or in a stack slot off the frame base of the
# function a kernel was inlined into, give exact FLOPs and bytes. A size that nothing holds at
# the hook's call (only its value at entry is described, in the register that carries the hook's
# own argument) comes from the caller's call site (DW_AT_call_value: 16 * scale, scale in a
# callee-saved register; for a copy inlined into a host, the host's caller) when it gives it; a
# call from a caller whose site does not is counted in a note, and a function none of whose
# callers gives it is one line.
. "$TS/lib.sh"
W='gemv_f32: flops=2*rows*cols bytes=4*(rows*cols+rows+cols)
axpy_f32: flops=2*n bytes=12*n
matmul_f32: flops=2*m*n*k bytes=4*(m*k+k*n+m*n)'
# gemv_f32: 3 calls at 30 x 20, 2 at 8 x 100; matmul_f32 4 at m=4 n=6 k=5; axpy_f32 4 at n=24.
GEMV_F=$((3 * 2 * 30 * 20 + 2 * 2 * 8 * 100))
GEMV_B=$((3 * 4 * (30 * 20 + 30 + 20) + 2 * 4 * (8 * 100 + 8 + 100)))
MM_F=$((4 * 2 * 4 * 6 * 5))
MM_B=$((4 * 4 * (4 * 5 + 5 * 6 + 4 * 6)))
for o in O2 O3; do
  v="$TB/victims/v_work_o3_$o"
  native=$("$v") || fail "native run failed ($o)"
  out=$(tp TPROF_OPS='*_f32' TPROF_WORK="$W" TPROF_JSON="$WORK/$o.json" LD_PRELOAD="$TPROF_SO" "$v" \
        2> "$WORK/$o.err") || fail "victim failed ($o)"
  [ "$out" = "$native" ] || fail "stdout changed ($o): $out"
  [ ! -s "$WORK/$o.err" ] || fail "stderr ($o): $(cat "$WORK/$o.err")"
  jcheck "$WORK/$o.json" \
    "ops['gemv_f32']['calls'] == 5 and ops['gemv_f32']['flops'] == $GEMV_F" \
    "ops['gemv_f32']['bytes'] == $GEMV_B" \
    "sorted((s['desc'], s['calls']) for s in ops['gemv_f32']['shapes']) == \
       [('rows=30 cols=20', 3), ('rows=8 cols=100', 2)]" \
    "ops['matmul_f32']['calls'] == 4 and ops['matmul_f32']['flops'] == $MM_F" \
    "ops['matmul_f32']['bytes'] == $MM_B" \
    "[(s['desc'], s['calls']) for s in ops['matmul_f32']['shapes']] == [('m=4 n=6 k=5', 4)]" \
    "ops['axpy_f32']['calls'] == 4 and ops['axpy_f32']['flops'] == 4 * 2 * 24" \
    "ops['axpy_f32']['bytes'] == 4 * 12 * 24" \
    "[(s['desc'], s['calls']) for s in ops['axpy_f32']['shapes']] == [('n=24', 4)]" \
    "not [n for n in d['notes'] if 'TPROF_WORK' in n or 'location' in n]"
  # The sizes nothing holds at the hook: zero_f32's from its callers (the one that passes 16 *
  # scale; the other passes a call's result), fill_f32's (inlined into fill_host: fill_host's
  # value at entry) from fill_host's caller, clear_f32's from none.
  tp TPROF_OPS='*_f32' TPROF_WORK="$W
zero_f32: bytes=4*n
fill_f32: bytes=4*n
clear_f32: bytes=4*n" TPROF_JSON="$WORK/n$o.json" LD_PRELOAD="$TPROF_SO" "$v" > /dev/null \
    2> "$WORK/n$o.err" || fail "victim failed (no value, $o)"
  [ "$(cat "$WORK/n$o.err")" = "tprof: TPROF_WORK: clear_f32: parameter 'n': only its value at entry is described (DW_OP_entry_value(rsi)): rsi carries the hook's own argument at the hook's call, and no caller's call site gives it (DW_AT_call_value); clear_f32 gets no FLOPs or bytes" ] ||
    fail "no value ($o): $(cat "$WORK/n$o.err")"
  jcheck "$WORK/n$o.json" "ops['clear_f32']['calls'] == 1 and ops['clear_f32']['bytes'] == 0" \
    "ops['zero_f32']['calls'] == 2 and ops['zero_f32']['bytes'] == 4 * 16" \
    "[(s['desc'], s['calls']) for s in ops['zero_f32']['shapes']] == [('n=16', 1)]" \
    "ops['fill_f32']['calls'] == 1 and ops['fill_f32']['bytes'] == 4 * 8" \
    "[(s['desc'], s['calls']) for s in ops['fill_f32']['shapes']] == [('n=8', 1)]" \
    "'1 op calls got no FLOPs or bytes from their TPROF_WORK entry: a parameter only their caller knows came from a caller whose call site does not give it' in d['notes']" \
    "ops['gemv_f32']['flops'] == $GEMV_F and ops['axpy_f32']['bytes'] == 4 * 12 * 24"
done
exit 0
