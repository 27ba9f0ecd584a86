#!/bin/sh
# The heap over time on an ordinary run (no TPROF_HTML, no thread of tprof's): v_life's default
# ops (forward_layers, backward_layers, update_params: 4 steps of known sizes) give a point at
# each outermost call's begin and end, with that op, plus the exact peak (inside
# backward_layers) and the heap when the report was made; points in ascending time. The text
# report draws the chart. With no op running, the CPU sampler's ticks give the points (v_hot:
# 300 ms of CPU time outside every op, at least one tick whatever the machine's speed).
. "$TS/lib.sh"
V="$TB/victims/v_life"
native=$("$V") || fail "native run failed"
out=$(tp TPROF_SAMPLE_HZ=0 TPROF_JSON="$WORK/l.json" TPROF_OUTPUT="$WORK/l.txt" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out"
W=$((1 << 20)) G=$((1 << 19)) O=$((3 << 18)) A=$(((1 << 17) + (3 << 16))) T=$((1 << 16))
# (op, live, persistent) of every point but the last: step 0's forward_layers begins with no
# unit ended (persistent 0); after that every outermost call ends one, so what is live then is
# persistent; the peak's persistent part is the report's persistent_bytes.
jcheck "$WORK/l.json" "m['peak_bytes'] == $W + $G + $O + $A + $T and m['peak_op'] == 'backward_layers'" \
  "m['persistent_bytes'] == $W + $G + $O + $A" \
  "[(p['op'], p['live_bytes'], p['persistent_bytes']) for p in m['series'][:-1]] == sum(( \
     [('forward_layers', $W + $G + $O, 0 if i == 0 else $W + $G + $O),
      ('forward_layers', $W + $G + $O + $A, $W + $G + $O + $A),
      ('backward_layers', $W + $G + $O + $A, $W + $G + $O + $A)] +
     ([('backward_layers', $W + $G + $O + $A + $T, $W + $G + $O + $A)] if i == 0 else []) +
     [('backward_layers', $W + $G + $O + $A, $W + $G + $O + $A),
      ('update_params', $W + $G + $O + $A, $W + $G + $O + $A),
      ('update_params', $W + $G + $O, $W + $G + $O)] for i in range(4)), [])" \
  "[p for p in m['series'] if p['ns'] == m['peak_ns'] and p['live_bytes'] == m['peak_bytes'] and p['op'] == 'backward_layers'] != []" \
  "all(a['ns'] <= b['ns'] for a, b in zip(m['series'], m['series'][1:]))" \
  "m['series'][-1]['op'] is None and m['series'][-1]['ns'] <= d['program']['wall_ns']"
grep -q "^heap over time, the most of each column ('@' the peak, ':' persistent, '#' transient):" \
  "$WORK/l.txt" || fail "text report: no heap chart"
# The same victim through tprof report: the chart from the JSON, and the ops of the points kept.
"$TPROF_CLI" report --format json "$WORK/l.json" > "$WORK/back.json" || fail "tprof report"
python3 -c 'import json, sys
a, b = (json.load(open(f))["memory"]["series"] for f in sys.argv[1:])
sys.exit(a != b or not a)' "$WORK/l.json" "$WORK/back.json" || fail "the series did not read back"
# No op running: the ticks' points, op null, between setup_table's two and the last.
V="$TB/victims/v_hot"
out=$(tp TPROF_OPS=setup_table TPROF_JSON="$WORK/h.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "v_hot failed"
[ "$out" = done ] || fail "v_hot stdout changed: $out"
jcheck "$WORK/h.json" "d['samples']['hz'] == 100 and d['samples']['total'] > 0" \
  "[p['op'] for p in m['series'][:2]] == ['setup_table', 'setup_table']" \
  "len([p for p in m['series'][2:-1] if p['op'] is None and p['ns'] != m['peak_ns']]) >= 1"
# and with sampling off, setup_table's two points and the last only (no peak here: no heap yet)
out=$(tp TPROF_SAMPLE_HZ=0 TPROF_OPS=setup_table TPROF_JSON="$WORK/h0.json" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "v_hot failed"
jcheck "$WORK/h0.json" \
  "[p['op'] for p in m['series'] if p['ns'] != m['peak_ns']] == ['setup_table', 'setup_table', None]"
exit 0
