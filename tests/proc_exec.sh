#!/bin/sh
# exec: each image writes its own report; the second does not overwrite the first.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_exec") || fail "victim failed: $?"
[ "$out" = "first
second" ] || fail "stdout changed: $out"
[ -f "$WORK/r.exec1.json" ] || fail "no report for the second image: $(ls "$WORK")"
jcheck "$WORK/r.json" "site('first_image')['bytes'] == 1111" "site('second_image')['count'] == 0"
jcheck "$WORK/r.exec1.json" "site('second_image')['bytes'] == 2222" "site('first_image')['count'] == 0"
