#!/bin/sh
# Heap requested inside a BLAS call is attributed to the op, exactly; the op running at the heap
# peak is named; memory that outlives the op calls is persistent, sgemm's own buffer transient.
. "$TS/lib.sh"
v="$TB/victims/v_blas_alloc"
native=$("$v") || fail "native run failed"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/a.json" LD_PRELOAD="$TPROF_SO" "$v") || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
jcheck "$WORK/a.json" \
  "ops['cblas_sgemm']['calls'] == 3" \
  "ops['cblas_sgemm']['alloc_count'] == 3" \
  "ops['cblas_sgemm']['alloc_bytes'] == 4 * (2*64*64 + 16*8)" \
  "ops['cblas_sgemm']['flops'] == 2 * 2*64*64*32 + 2*16*8*8" \
  "m['peak_op'] == 'cblas_sgemm'" \
  "m['peak_bytes'] == (1 << 20) + 4*64*64 + 4*64*64" \
  "m['persistent_bytes'] == (1 << 20) + 4*64*64" \
  "m['transient_bytes'] == 4*64*64 and m['lifetime_unit'] == 'op_call'"
