#!/bin/sh
# tprof diff of two runs of one program (v_manysites, 4,096 call sites) that wrote different
# numbers of sites: one its top 10 per measure with the rest rolled up (TPROF_JSON_SITES=10), the
# other all of them. Nothing changed, and the diff says so: no site added or removed, every
# function the same (tests/cli_diff_rollup.sh has the rules on hand-made reports).
. "$TS/lib.sh"
T="$TPROF_CLI"
V=$TB/victims/v_manysites
tp TPROF_JSON_SITES=10 TPROF_OUTPUT=none TPROF_JSON="$WORK/roll.json" LD_PRELOAD="$TPROF_SO" "$V" >/dev/null ||
  fail "victim failed"
tp TPROF_JSON_SITES=0 TPROF_OUTPUT=none TPROF_JSON="$WORK/all.json" LD_PRELOAD="$TPROF_SO" "$V" >/dev/null ||
  fail "victim failed"
"$T" diff "$WORK/roll.json" "$WORK/all.json" --format json > "$WORK/ra.json" || fail "diff of two runs failed"
python3 - "$WORK/ra.json" "$WORK/roll.json" <<'PY' || fail "diff of a rolled-up run against a whole one"
import json, sys
d = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))['memory']
st = [s['status'] for s in d['sites']]
assert 'added' not in st and 'removed' not in st, sorted(set(st))
nroll = sum(x['sites'] for x in r['site_rollups'])
assert st.count('rolled_up_before') == nroll, (st.count('rolled_up_before'), nroll)
g = [f for f in d['functions'] if (f['function'] or '').startswith('g_')]
assert len(g) == 64, len(g)
assert all(f['rolled_up_before'] and not f['rolled_up_after'] and f['sites']['before'] == 64 ==
           f['sites']['after'] for f in g)
for f in d['functions']:
    assert f['status'] == 'both', f
    for k in ('sites', 'allocs', 'bytes', 'live_at_peak_bytes', 'live_at_exit_bytes'):
        assert f[k]['delta'] == 0, (f['function'], k, f[k])
PY
"$T" diff "$WORK/roll.json" "$WORK/all.json" > "$WORK/ra.txt" || fail "diff text of two runs failed"
grep -q '^HEAP BY FUNCTION' "$WORK/ra.txt" || fail "no functions section"
! grep -q '  (added)$\|  (removed)$' "$WORK/ra.txt" || fail "a site of an unchanged run is added or removed"
exit 0
