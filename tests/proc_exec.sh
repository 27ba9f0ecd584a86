#!/bin/sh
# exec: the plain report name belongs to the last image of a process; an image that did work of
# its own before it exec'd writes its report under its name (".<image>"), and neither report
# holds the other's allocations.
. "$TS/lib.sh"
files() { (cd "$1" && LC_ALL=C ls | tr '\n' ' '); }
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_exec") || fail "victim failed: $?"
[ "$out" = "first
second" ] || fail "stdout changed: $out"
[ "$(files "$WORK")" = "r.json r.v_exec.json " ] || fail "reports: $(files "$WORK")"
jcheck "$WORK/r.v_exec.json" "site('first_image')['bytes'] == 1111" "site('second_image')['count'] == 0"
jcheck "$WORK/r.json" "site('second_image')['bytes'] == 2222" "site('first_image')['count'] == 0"
# An environment copied before fork and passed to execve in the child: three reports, none
# overwritten (the parent's, the child's before exec, and the exec'd image's, which has the
# child's plain name).
mkdir "$WORK/e"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/e/e.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_envexec") ||
  fail "v_envexec failed: $?"
[ "$out" = "execd
parent" ] || fail "stdout changed (v_envexec): $out"
set -- "$WORK"/e/e.*.v_envexec.json
[ -f "$1" ] || fail "no report for the child before exec: $(files "$WORK/e")"
execd=${1%.v_envexec.json}.json
[ "$(files "$WORK/e")" = "${execd##*/} ${1##*/} e.json " ] || fail "reports: $(files "$WORK/e")"
jcheck "$WORK/e/e.json" "site('parent_work')['bytes'] == 1111" "site('child_work')['count'] == 0"
jcheck "$1" "site('child_work')['bytes'] == 2222" "site('execd_work')['count'] == 0"
jcheck "$execd" "site('execd_work')['bytes'] == 3333" "site('child_work')['count'] == 0"
