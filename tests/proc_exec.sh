#!/bin/sh
# exec: each image writes its own report; the second does not overwrite the first.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_exec") || fail "victim failed: $?"
[ "$out" = "first
second" ] || fail "stdout changed: $out"
[ -f "$WORK/r.exec1.json" ] || fail "no report for the second image: $(ls "$WORK")"
jcheck "$WORK/r.json" "site('first_image')['bytes'] == 1111" "site('second_image')['count'] == 0"
jcheck "$WORK/r.exec1.json" "site('second_image')['bytes'] == 2222" "site('first_image')['count'] == 0"
# An environment copied before fork and passed to execve in the child: three reports, none
# overwritten (the parent's, the child's before exec, and the exec'd image's).
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/e.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_envexec") ||
  fail "v_envexec failed: $?"
[ "$out" = "execd
parent" ] || fail "stdout changed (v_envexec): $out"
set -- "$WORK"/e.*.exec1.json
[ -f "$1" ] || fail "no report for the exec'd image: $(ls "$WORK")"
child=${1%.exec1.json}.json
[ -f "$child" ] || fail "no report for the child before exec: $(ls "$WORK")"
jcheck "$WORK/e.json" "site('parent_work')['bytes'] == 1111" "site('child_work')['count'] == 0"
jcheck "$child" "site('child_work')['bytes'] == 2222" "site('execd_work')['count'] == 0"
jcheck "$1" "site('execd_work')['bytes'] == 3333" "site('child_work')['count'] == 0"
