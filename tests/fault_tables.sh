#!/bin/sh
# tprof's call-site table full (TPROF_MAX_SITES=16 for 40 distinct stacks): the report says
# "partial" and why, the allocations past it go to one overflow site, the totals stay exact,
# and the program's output and exit status are unchanged.
. "$TS/lib.sh"
V=$TB/victims/v_deepsites
out=$(tp TPROF_STACK=64 TPROF_JSON="$WORK/all.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed"
[ "$out" = "done" ] || fail "stdout changed: $out"
jcheck "$WORK/all.json" "not d['partial']" \
  "len([s for s in m['sites'] if s['frames'] and s['frames'][0]['function'] == 'descend' and s['allocs'] == 10]) == 40"
out=$(tp TPROF_STACK=64 TPROF_MAX_SITES=16 TPROF_JSON="$WORK/full.json" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "victim failed with a full table"
[ "$out" = "done" ] || fail "stdout changed with a full table: $out"
jcheck "$WORK/full.json" "d['partial']" \
  "any(n.startswith('call-site table full (TPROF_MAX_SITES=16)') for n in d['notes'])" \
  "site('descend')['allocs'] + site('[call-site table full]')['allocs'] == 400" \
  "site('[call-site table full]')['allocs'] > 0" \
  "site('descend')['bytes'] + site('[call-site table full]')['bytes'] == 40000" \
  "site('descend')['live_at_exit_bytes'] + site('[call-site table full]')['live_at_exit_bytes'] == 20000"
exit 0
