#!/bin/sh
# C++ new/delete: sites are the callers of operator new; a leaked block is live at exit.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_cxx") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "site('make_block()')['allocs'] == 2" "site('make_block()')['frees'] == 1" \
  "site('make_block()')['live_at_exit_bytes'] == 4000" \
  "site('main')['allocs'] == 1" "site('main')['bytes'] == 4000" "site('main')['frees'] == 1"
