#!/bin/sh
# 65,536 call sites behind a deep shared stack ([h5 h4 h3 h2 h1 g_y f_x main]): their frames
# share the frame trees' nodes, so the whole table fits TPROF_MEMORY_BUDGET=6M (at about 125
# bytes a site, when every site kept its own 8 frames, it took some 9.2 MB and the report was
# partial). Every total exact, every site written has its own stack and figures; at 2M the
# report is partial and says exactly what went to the overflow site. Output unchanged.
. "$TS/lib.sh"
V=$TB/victims/v_bigsites
want=$(python3 -c 'print(sum((x + y) % 64 + 16 for x in range(256) for y in range(256)))')
live=$(python3 -c 'print(sum((k // 256 + k % 256) % 64 + 16 for k in range(65536) if k % 16 == 0))')
ours="[s for s in m['sites'] if s['frames'] and s['frames'][0]['function'] == 'h5']"
rows="[r for r in m['site_rollups'] if r['function'] == 'h5']"
stack="['h5', 'h4', 'h3', 'h2', 'h1', 'g_%02x' % y, 'f_%02x' % x, 'main']"
out=$(tp TPROF_MEMORY_BUDGET=6M TPROF_JSON_SITES=100 TPROF_JSON="$WORK/fit.json" \
      LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed"
[ "$out" = "done" ] || fail "stdout changed: $out"
jcheck "$WORK/fit.json" "not d['partial']" \
  "not any('call-site table full' in n for n in d['notes'])" \
  "len($ours) >= 100" \
  "all([f['function'] for f in s['frames']] == (lambda x, y: $stack)(int(s['frames'][6]['function'][2:], 16), int(s['frames'][5]['function'][2:], 16)) for s in $ours)" \
  "all(s['allocs'] == 1 and s['bytes'] == (int(s['frames'][6]['function'][2:], 16) + int(s['frames'][5]['function'][2:], 16)) % 64 + 16 for s in $ours)" \
  "len($ours) + sum(r['sites'] for r in $rows) == 65536" \
  "sum(s['allocs'] for s in $ours) + sum(r['allocs'] for r in $rows) == 65536" \
  "sum(s['frees'] for s in $ours) + sum(r['frees'] for r in $rows) == 65536 - 4096" \
  "sum(s['bytes'] for s in $ours) + sum(r['bytes'] for r in $rows) == $want" \
  "sum(s['live_at_exit_bytes'] for s in $ours) + sum(r['live_at_exit_bytes'] for r in $rows) == $live" \
  "sum(s['allocs'] for s in m['sites']) + sum(r['allocs'] for r in m['site_rollups']) == m['allocs']" \
  "sum(s['bytes'] for s in m['sites']) + sum(r['bytes'] for r in m['site_rollups']) == m['bytes_allocated']"

out=$(tp TPROF_MEMORY_BUDGET=2M TPROF_JSON_SITES=100 TPROF_JSON="$WORK/part.json" \
      LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed with a small budget"
[ "$out" = "done" ] || fail "stdout changed with a small budget: $out"
over="[s for s in m['sites'] if s['frames'] and s['frames'][0]['function'] == '[call-site table full]'][0]"
jcheck "$WORK/part.json" "d['partial']" \
  "0 < len($ours) + sum(r['sites'] for r in $rows) < 65536" \
  "sum(s['allocs'] for s in $ours) + sum(r['allocs'] for r in $rows) + $over['allocs'] == 65536" \
  "sum(s['bytes'] for s in $ours) + sum(r['bytes'] for r in $rows) + $over['bytes'] == $want" \
  "sum(s['live_at_exit_bytes'] for s in $ours) + sum(r['live_at_exit_bytes'] for r in $rows) + $over['live_at_exit_bytes'] == $live" \
  "any(n.startswith('call-site table full (TPROF_MEMORY_BUDGET=2097152 bytes reached at ') and
       ('): %d allocations of %d bytes (%d bytes live at exit) are not attributed' %
        ($over['allocs'], $over['bytes'], $over['live_at_exit_bytes'])) in n for n in d['notes'])"
exit 0
