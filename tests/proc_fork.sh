#!/bin/sh
# fork: two reports, each exact; the child's is named by its pid.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_fork") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
set -- "$WORK"/r.*.json
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one child report beside r.json, found: $*"
jcheck "$WORK/r.json" \
  "m['peak_bytes'] == 6000" "site('in_parent')['allocs'] == 1" "site('in_child')['count'] == 0" \
  "site('before_fork')['allocs'] == 1" "site('before_fork')['frees'] == 1" "m['unknown_frees'] == 0"
jcheck "$1" \
  "m['peak_bytes'] == 3000" "site('in_child')['allocs'] == 1" "site('in_parent')['count'] == 0" \
  "site('before_fork')['frees'] == 1" "site('before_fork')['allocs'] == 0" \
  "m['unknown_frees'] == 0" "d['program']['pid'] != d['program']['ppid']" \
  "str(d['program']['pid']) in '$1'"
