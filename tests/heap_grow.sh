#!/bin/sh
# A program with more call sites (4,096) than the first call-site index holds: the table grows
# and the report is whole, every site exact; with a tiny TPROF_MEMORY_BUDGET it stops growing,
# and the report says "partial" and exactly what went to the overflow site, whose figures with
# the sites kept add up to the program's. Output and exit status unchanged either way.
. "$TS/lib.sh"
V=$TB/victims/v_manysites
# (a + b) % 97 + 1 bytes, twice per (a, b); the first of each pair freed
want=$(python3 -c 'print(sum((a + b) % 97 + 1 for a in range(64) for b in range(64)))')
out=$(tp TPROF_JSON_SITES=0 TPROF_JSON="$WORK/all.json" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "victim failed"
[ "$out" = "done" ] || fail "stdout changed: $out"
jcheck "$WORK/all.json" "not d['partial']" \
  "len([s for s in m['sites'] if s['frames'] and s['frames'][0]['function'].startswith('g_')]) == 4096" \
  "all(s['allocs'] == 2 and s['frees'] == 1 for s in m['sites'] if s['frames'] and s['frames'][0]['function'].startswith('g_'))" \
  "sum(s['bytes'] for s in m['sites'] if s['frames'] and s['frames'][0]['function'].startswith('g_')) == 2 * $want" \
  "sum(s['allocs'] for s in m['sites']) == m['allocs']"

out=$(tp TPROF_JSON_SITES=0 TPROF_MEMORY_BUDGET=64K TPROF_JSON="$WORK/part.json" \
      LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed with a small budget"
[ "$out" = "done" ] || fail "stdout changed with a small budget: $out"
over="[s for s in m['sites'] if s['frames'] and s['frames'][0]['function'] == '[call-site table full]'][0]"
gs="[s for s in m['sites'] if s['frames'] and s['frames'][0]['function'].startswith('g_')]"
jcheck "$WORK/part.json" "d['partial']" \
  "0 < len($gs) < 4096" \
  "sum(s['allocs'] for s in $gs) + $over['allocs'] == 8192" \
  "sum(s['bytes'] for s in $gs) + $over['bytes'] == 2 * $want" \
  "sum(s['live_at_exit_bytes'] for s in $gs) + $over['live_at_exit_bytes'] == $want" \
  "sum(s['allocs'] for s in m['sites']) == m['allocs']" \
  "sum(s['bytes'] for s in m['sites']) == m['bytes_allocated']" \
  "any(n.startswith('call-site table full (TPROF_MEMORY_BUDGET=65536 bytes reached at ') and
       ('): %d allocations of %d bytes (%d bytes live at exit) are not attributed' %
        ($over['allocs'], $over['bytes'], $over['live_at_exit_bytes'])) in n for n in d['notes'])"
exit 0
