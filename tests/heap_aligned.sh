#!/bin/sh
# posix_memalign, aligned_alloc, memalign, valloc, pvalloc, calloc: alignment kept, bytes exact.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_aligned") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "m['allocs'] == 6" "m['frees'] == 6" "m['bytes_allocated'] == 1000 + 2048 + 3000 + 4000 + 5000 + 1000" \
  "m['peak_bytes'] == 16048" "m['live_at_exit_bytes'] == 0" "m['failed_allocs'] == 1" "m['unknown_frees'] == 1"
