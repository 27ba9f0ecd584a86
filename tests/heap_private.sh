#!/bin/sh
# The stack walker's own blocks (libdw reading unwind rules in the middle of the program's first
# malloc) stay out of the program's arena: the main arena grows by the program's chunk alone.
# Before tprof had a private heap this grew by 31 KiB, and a churn of 10^6 pairs ended 1 MiB
# bigger (bench/RESULTS.md).
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/p.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_private") || fail "victim failed: $?"
set -- $out
[ $# -eq 2 ] || fail "unexpected output: $out"
[ "$1" = "$2" ] || fail "the main arena grew by $1 bytes for a $2-byte chunk"
# the victim's block, at its own site (stdio's buffer is the report's other allocation)
jcheck "$WORK/p.json" "m['unknown_frees'] == 0" \
  "[(s['allocs'], s['bytes'], s['live_at_exit_bytes']) for s in m['sites'] if (s['frames'][0]['function'] or '').startswith('site')] == [(1, 1000, 0)]"
