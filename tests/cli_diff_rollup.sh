#!/bin/sh
# tprof diff when a report rolled call sites up (TPROF_JSON_SITES): a site written by one report
# and rolled up by the other is "rolled up", never "added" or "removed", and its change is not
# guessed; the functions section sums written and rolled-up sites per function and module, so
# both sides are exact whatever each run wrote. On hand-made reports with exact figures (two runs
# of a real program: tests/heap_diff_rollup.sh).
. "$TS/lib.sh"
A="$TS/fixtures/a.json"; B="$TS/fixtures/b.json"; T="$TPROF_CLI"

# ar.json is a.json with its alloc_act site moved into a rolled-up row (same totals).
AR="$TS/fixtures/ar.json"
"$T" diff "$AR" "$B" --format json > "$WORK/d.json" || fail "diff --format json failed"
python3 - "$WORK/d.json" <<'PY' || fail "diff figures with a rolled-up row"
import json, sys
d = json.load(open(sys.argv[1]))
st = {s['frames'][0]['function']: s for s in d['sites']}
act = st['alloc_act']
assert act['status'] == 'rolled_up_before', act['status']
for k in ('peak_live_bytes', 'live_at_peak_bytes', 'allocs', 'bytes'):
    assert act[k]['before'] is None and act[k]['delta'] is None and act[k]['pct'] is None, (k, act[k])
assert act['bytes']['after'] == 30000
# ar.json rolled up alloc_act only: alloc_cache is new, the BLAS site gone, as before
assert st['alloc_cache']['status'] == 'added' and st[None]['status'] == 'removed'
assert d['sites'][-1]['frames'][0]['function'] == 'alloc_act', 'an unknown change sorts last'
f = d['functions']
assert [(r['function'], r['module']) for r in f] == [('alloc_act', 'model'), ('alloc_cache', 'model'),
    (None, 'libopenblas.so.0'), ('alloc_weights', 'model')], [(r['function'], r['module']) for r in f]
a = f[0]
assert a['status'] == 'both' and a['rolled_up_before'] and not a['rolled_up_after']
assert (a['sites']['before'], a['sites']['after']) == (1, 1)
assert (a['live_at_peak_bytes']['before'], a['live_at_peak_bytes']['after'], a['live_at_peak_bytes']['delta']) == (1000, 3000, 2000)
assert (a['bytes']['before'], a['bytes']['after'], a['bytes']['delta']) == (10000, 30000, 20000)
assert a['allocs']['delta'] == 0 and a['live_at_exit_bytes']['delta'] == 0
c = f[1]
assert c['status'] == 'added' and c['sites']['before'] is None and c['sites']['after'] == 1
assert c['live_at_exit_bytes']['after'] == 250 and c['live_at_exit_bytes']['delta'] == 250
assert f[2]['status'] == 'removed' and f[2]['bytes']['before'] == 100
w = f[3]
assert all(w[k]['delta'] == 0 for k in ('sites', 'allocs', 'bytes', 'live_at_peak_bytes', 'live_at_exit_bytes'))
PY
"$T" diff "$AR" "$B" > "$WORK/d.txt" || fail "diff text failed"
grep -q '^alloc_act (model.c:20) <- main (model.c:99)  (rolled up before)$' "$WORK/d.txt" ||
  fail "the site rolled up before is not said so: $(grep '^alloc_act' "$WORK/d.txt")"
grep -A3 '^alloc_act (model.c:20) <- main (model.c:99)  (rolled up before)$' "$WORK/d.txt" |
  grep -q '^  change  *-  *-  *-  *-$' || fail "a rolled-up site's change is shown: $(cat "$WORK/d.txt")"
grep -q '^HEAP BY FUNCTION' "$WORK/d.txt" || fail "no functions section with a rolled-up report"
grep -A3 '^alloc_act (model)  sites 1 -> 1$' "$WORK/d.txt" |
  grep -q '^  change  *+1.95 KiB (+200%)  *same  *same  *+19.5 KiB (+200%)$' ||
  fail "alloc_act's function row: $(grep -A3 '^alloc_act (model)' "$WORK/d.txt")"
awk 'length > 100 { bad = 1 } END { exit bad }' "$WORK/d.txt" || fail "diff text wider than 100 columns"
# Without rolled-up rows the text has no functions section, as before; the JSON has the rows.
"$T" diff "$A" "$B" > "$WORK/ab.txt" || fail "diff failed"
! grep -q '^HEAP BY FUNCTION' "$WORK/ab.txt" || fail "functions section without rolled-up rows"
"$T" diff "$A" "$B" --format json > "$WORK/ab.json" || fail "diff --format json failed"
python3 -c "
import json, sys
d = json.load(open('$WORK/ab.json'))
assert len(d['functions']) == 4 and not any(r['rolled_up_before'] or r['rolled_up_after'] for r in d['functions'])
" || fail "functions of a diff without rolled-up rows"

exit 0
