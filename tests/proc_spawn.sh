#!/bin/sh
# posix_spawn: the spawned program writes its own report, named by its pid.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_spawn") || fail "victim failed: $?"
[ "$out" = "child status 5" ] || fail "stdout changed: $out"
set -- "$WORK"/r.*.json
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one report of the spawned program: $*"
jcheck "$1" "site('spawned_alloc')['bytes'] == 4444"
jcheck "$WORK/r.json" "site('spawned_alloc')['count'] == 0"
