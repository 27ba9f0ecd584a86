#!/bin/sh
# TPROF_HTML on a two-thread training loop (tests/victims/v_trace.c, 20 steps): the JSON's heap
# series holds the exact peak, its step series every step; `tprof report --html` of the JSON is
# the page the run wrote, byte for byte; the text report has the heap chart. Then headless
# Chromium opens the page: no console message (the page logs only errors), every chart drawn,
# and the DOM holds the ops, figures and points of the JSON (tests/htmlcheck.py); a screenshot
# is written (kept at $TPROF_HTML_SHOT when that is set). Chromium is the only part skipped when
# it is not installed. A run without TPROF_HTML records the heap over time too: the page that
# `tprof report --html` makes of its JSON has the heap chart, one point per point of the series,
# each naming its op on hover. Every run has the memory ledger: the pages of both runs have the
# RSS chart and the "Where the RSS went" table, as the JSON's ledger says (tests/htmlcheck.py);
# the merged report has none, and its page says so in the chart.
. "$TS/lib.sh"
V=$TB/victims/v_trace
OPS='*matmul*,*forward*,*conv*'
native=$("$V" 20 1) || fail "native run failed"
out=$(tp TPROF_OPS="$OPS" TPROF_STEP=train_step TPROF_JSON="$WORK/r.json" TPROF_HTML="$WORK/r.html" \
      TPROF_OUTPUT="$WORK/r.txt" LD_PRELOAD="$TPROF_SO" "$V" 20 1) || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out"
# step k allocates 1 MiB on top of the 3 x 64 KiB parameters: the peak is a point of the series
jcheck "$WORK/r.json" "m['peak_bytes'] >= 1048576 + 196608" \
  "len(m['series']) >= 2 and len(m['series']) <= 1000" \
  "[p for p in m['series'] if p['ns'] == m['peak_ns'] and p['live_bytes'] == m['peak_bytes']] != []" \
  "max(p['live_bytes'] for p in m['series']) == m['peak_bytes']" \
  "all(a['ns'] <= b['ns'] for a, b in zip(m['series'], m['series'][1:]))" \
  "[p['index'] for p in d['steps']['series']] == list(range(20))" \
  "d['steps']['warmup'] == 1 and d['steps']['count'] == 20" \
  "all(a['end_ns'] < b['end_ns'] for a, b in zip(d['steps']['series'], d['steps']['series'][1:]))" \
  "sorted(';'.join(s['ops']) for s in d['op_stacks']) == ['conv_layer', 'conv_layer;small_matmul', 'layer_forward', 'layer_forward;small_matmul']" \
  "abs(d['steps']['wall_ns'] - sum(p['ns'] for p in d['steps']['series'])) <= 1e-3 * d['steps']['wall_ns']" \
  "d['steps']['thread_cpu_ns'] > 0 and d['steps']['thread_cpu_ns'] <= d['steps']['wall_ns']" \
  "m['ledger_method'] == 'smaps' and m['ledger'] and m['ledger_series']" \
  "sum(r['resident_bytes'] for r in m['ledger']) == m['peak_rss_bytes']"
# The page's header says what the text report's does: the CPUs and the load, and the peaks with
# their source, age and conditions; the text report says what the CPUs did during the steps.
python3 - "$WORK/r.html" "$WORK/r.txt" "$WORK/r.json" <<'PY' || fail "page header or steps' CPU line"
import html, json, re, sys
page, text, d = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
flat = " ".join(text.split())
for pid in ("peaks-header", "cpu-header"):
    m = re.search('<p class="meta" id="%s">([^<]*)</p>' % pid, page)
    assert m, pid
    assert html.unescape(m.group(1)) in flat, (pid, m.group(1))
st = d["steps"]
m = re.search(r"the recorded steps took ([^;]+); the thread running them was on a CPU ([^(]+) \(([\d.]+)%\)"
              r"( and waited ([^(]+) for one \(([\d.]+)%\))?; all the process's threads were on a CPU "
              r"(~?)([^(]+) \(([\d.]+) CPUs on average\)", flat)
assert m, "no steps' CPU line"
assert abs(float(m.group(3)) - 100 * st["thread_cpu_ns"] / st["wall_ns"]) < 0.051, m.group(3)
# steps under a millisecond: the run queue is not read (it would cost over 1% of the step)
assert (m.group(4) is not None) == (st["runq_ns"] >= 0), (m.group(4), st["runq_ns"])
assert m.group(7) == ("~" if st["wall_ns"] / st["count"] < 50e6 else ""), "estimate mark"
assert abs(float(m.group(9)) - st["cpu_ns"] / st["wall_ns"]) < 0.051, m.group(9)
PY
"$TPROF_CLI" report --html "$WORK/again.html" "$WORK/r.json" || fail "tprof report --html"
cmp -s "$WORK/r.html" "$WORK/again.html" || fail "tprof report --html differs from TPROF_HTML's page"
# tprof merge keeps the heap over time of the process that peaked highest: here both are one
"$TPROF_CLI" merge "$WORK/r.json" "$WORK/r.json" -o "$WORK/m.json" || fail "tprof merge"
python3 -c 'import json, sys
a, m = (json.load(open(f))["memory"]["series"] for f in sys.argv[1:])
sys.exit(a != m or not a)' "$WORK/r.json" "$WORK/m.json" || fail "tprof merge lost the heap series"
grep -q "^heap over time, the most of each column ('@' the peak, ':' persistent, '#' transient):" \
  "$WORK/r.txt" || fail "text report: no heap chart"
grep -q '^ *[0-9.]* [KM]iB |.*@' "$WORK/r.txt" || fail "text report: the chart's top row has no peak"
# The same run without TPROF_HTML: its JSON's page.
tp TPROF_OPS="$OPS" TPROF_STEP=train_step TPROF_JSON="$WORK/plain.json" LD_PRELOAD="$TPROF_SO" \
  "$V" 20 1 > /dev/null || fail "victim failed without TPROF_HTML"
jcheck "$WORK/plain.json" "max(p['live_bytes'] for p in m['series']) == m['peak_bytes']" \
  "[p['op'] for p in m['series'] if p['ns'] == m['peak_ns'] and p['live_bytes'] == m['peak_bytes']][:1] == [m['peak_op']]" \
  "{p['op'] for p in m['series']} - {None} <= {'train_step', 'conv_layer', 'layer_forward', 'small_matmul'}" \
  "m['ledger'] and m['ledger_series']"
"$TPROF_CLI" report --html "$WORK/plain.html" "$WORK/plain.json" || fail "tprof report --html (plain)"
# The page alone, with no text report and no JSON: it is still written.
TPROF_OUTPUT=none TPROF_HTML="$WORK/alone.html" LD_PRELOAD="$TPROF_SO" "$V" 2 1 > /dev/null 2>&1 ||
  fail "victim failed with the page alone"
grep -q '</html>' "$WORK/alone.html" || fail "TPROF_OUTPUT=none: no page written"
# A directory that does not exist: one line, the run goes on, no page.
err=$(TPROF_OUTPUT=none TPROF_HTML="$WORK/none/x.html" LD_PRELOAD="$TPROF_SO" "$V" 2 1 2>&1 >/dev/null) ||
  fail "victim failed under a bad TPROF_HTML"
[ "$err" = "tprof: TPROF_HTML=$WORK/none/x.html: directory $WORK/none: No such file or directory; using none (no HTML report)" ] ||
  fail "bad TPROF_HTML: $err"
[ ! -e "$WORK/none" ] || fail "a page was written under a bad TPROF_HTML"
# The page is self-contained: nothing to fetch.
grep -Eq '(src|href)=|@import|url\(' "$WORK/r.html" && fail "the page refers to another file"

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
  echo "SKIP: no chromium (scripts/setup.sh installs it): the page was not opened"
  exit 77
fi
chrome() {
  timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$WORK/chrome" --enable-logging=stderr --v=0 "$@"
}
chrome --dump-dom "file://$WORK/r.html" > "$WORK/dom.html" 2> "$WORK/chrome.err" ||
  fail "chromium --dump-dom failed: $(tail -3 "$WORK/chrome.err")"
if grep 'CONSOLE' "$WORK/chrome.err"; then fail "the page wrote to the console"; fi
python3 "$TS/htmlcheck.py" "$WORK/r.json" "$WORK/dom.html" || fail "the DOM does not hold the report"
chrome --dump-dom "file://$WORK/plain.html" > "$WORK/plain.dom" 2> "$WORK/chrome4.err" ||
  fail "chromium --dump-dom of the page without TPROF_HTML failed"
if grep 'CONSOLE' "$WORK/chrome4.err"; then fail "the page without TPROF_HTML wrote to the console"; fi
python3 "$TS/htmlcheck.py" "$WORK/plain.json" "$WORK/plain.dom" ||
  fail "the DOM of the page without TPROF_HTML does not hold the report"
# A merged report of two processes (the run merged with itself): its page has the per-process
# table, the steps' summary, the merged header, as the JSON says (tests/htmlcheck.py).
"$TPROF_CLI" report --html "$WORK/m.html" "$WORK/m.json" || fail "tprof report --html of a merged report"
chrome --dump-dom "file://$WORK/m.html" > "$WORK/m.dom" 2> "$WORK/chrome5.err" ||
  fail "chromium --dump-dom of the merged page failed"
if grep 'CONSOLE' "$WORK/chrome5.err"; then fail "the merged page wrote to the console"; fi
jcheck "$WORK/m.json" "d['merged_processes'] == 2 and d['steps']['count'] == 40" \
  "any(o['nprocs'] == 2 for o in d['ops'])" "not m.get('ledger') and not m.get('ledger_series')"
python3 "$TS/htmlcheck.py" "$WORK/m.json" "$WORK/m.dom" || fail "the DOM of the merged page does not hold the report"
# Sorting: the page's own script, with two clicks on "calls" added at its end, leaves the rows
# in ascending order of calls (the first click sorts down, the second up).
sed 's|</body></html>|<script>var h = document.querySelectorAll("#ops th")[2]; h.click(); h.click();</script></body></html>|' \
  "$WORK/r.html" > "$WORK/sorted.html"
chrome --dump-dom "file://$WORK/sorted.html" > "$WORK/sorted.dom" 2> "$WORK/chrome3.err" ||
  fail "chromium --dump-dom of the sorted page failed"
python3 - "$WORK/sorted.dom" << 'EOF2' || fail "the ops table does not sort by calls"
import re, sys
t = open(sys.argv[1]).read()
body = t[t.index('id="ops"'):]
body = body[:body.index('</table>')]
calls = [float(r[0]) for r in (re.findall(r'data-v="([^"]*)"', row) for row in body.split('<tr>')[2:])]
sys.exit(not (len(calls) >= 3 and calls == sorted(calls) and calls != sorted(calls, reverse=True)))
EOF2
chrome --window-size=1000,2400 --screenshot="$WORK/shot.png" "file://$WORK/r.html" \
  > /dev/null 2> "$WORK/chrome2.err" || fail "chromium --screenshot failed"
head -c 8 "$WORK/shot.png" | od -An -c | grep -q 'P   N   G' || fail "no PNG screenshot"
[ "$(wc -c < "$WORK/shot.png")" -gt 10000 ] || fail "the screenshot is nearly empty"
if grep 'CONSOLE' "$WORK/chrome2.err"; then fail "the page wrote to the console"; fi
if [ -n "${TPROF_HTML_SHOT:-}" ]; then cp "$WORK/shot.png" "$TPROF_HTML_SHOT"; fi
exit 0
