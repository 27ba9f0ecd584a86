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

# TPROF_JSON_SITES=10: the top 10 by each measure written one by one, the rest rolled up per
# function and module; rolled-up rows and written sites add up exactly to every total, and
# `tprof report` (text and JSON), `merge` and `diff` take the rows.
out=$(tp TPROF_JSON_SITES=10 TPROF_JSON="$WORK/roll.json" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "victim failed with TPROF_JSON_SITES=10"
[ "$out" = "done" ] || fail "stdout changed with TPROF_JSON_SITES=10: $out"
both() { echo "sum(s['$1'] for s in m['sites']) + sum(r['$1'] for r in m['site_rollups'])"; }
gb="[s for s in m['sites'] if s['frames'][0]['function'] == 'g_%02o' % b] + [r for r in m['site_rollups'] if r['function'] == 'g_%02o' % b]"
roll_ok() {
  jcheck "$1" "not d['partial']" "10 <= len(m['sites']) <= 40" \
    "len(m['sites']) + sum(r['sites'] for r in m['site_rollups']) == m['nsites_total']" \
    "$(both allocs) == m['allocs']" "$(both frees) == m['frees']" \
    "$(both bytes) == m['bytes_allocated']" "$(both live_at_exit_bytes) == m['live_at_exit_bytes']" \
    "$(both live_at_exit_allocs) == m['live_at_exit_allocs']" \
    "all(sum(x['allocs'] for x in $gb) == $2 * 128 for b in range(64))" \
    "all(sum(x.get('sites', 1) for x in $gb) == $2 * 64 for b in range(64))"
}
roll_ok "$WORK/roll.json" 1
jcheck "$WORK/roll.json" "(sum(r['bytes'] for r in m['site_rollups'] if r['function'].startswith('g_')) +
  sum(s['bytes'] for s in m['sites'] if s['frames'][0]['function'].startswith('g_'))) == 2 * $want" \
  "any(n.startswith('%d of %d call sites written (TPROF_JSON_SITES=10' % (len(m['sites']), m['nsites_total'])) for n in d['notes'])"
"$TPROF_CLI" report "$WORK/roll.json" --format json > "$WORK/again.json" || fail "tprof report --format json failed"
roll_ok "$WORK/again.json" 1
"$TPROF_CLI" report "$WORK/roll.json" > "$WORK/roll.txt" || fail "tprof report failed"
tr '\n' ' ' < "$WORK/roll.txt" | grep -q "rolls the *other [0-9]* up into 64 rows per function and module" ||
  fail "the text report does not say the sites were rolled up: $(grep 'sites in all' "$WORK/roll.txt")"
"$TPROF_CLI" merge "$WORK/roll.json" "$WORK/roll.json" -o "$WORK/merged.json" >/dev/null ||
  fail "tprof merge failed"
jcheck "$WORK/merged.json" "len(m['site_rollups']) == 64" \
  "$(both allocs) == m['allocs'] == 2 * 8192" "$(both bytes) == m['bytes_allocated'] == 4 * $want"
"$TPROF_CLI" diff "$WORK/roll.json" "$WORK/all.json" > "$WORK/diff.txt" || fail "tprof diff failed"

# Four threads find the same 4,096 new stacks at once, from one barrier, while the table grows
# under them: every count exact. (The report merges sites of the same lines, so a stack
# published twice would not show here: tests/check_heap's test_sites_grow_threads checks that.)
out=$(tp TPROF_JSON_SITES=0 TPROF_JSON="$WORK/threads.json" LD_PRELOAD="$TPROF_SO" "$V" 4) ||
  fail "victim failed with 4 threads"
[ "$out" = "done" ] || fail "stdout changed with 4 threads: $out"
jcheck "$WORK/threads.json" "not d['partial']" \
  "len($gs) == 4096" \
  "all(s['allocs'] == 8 and s['frees'] == 4 for s in $gs)" \
  "sum(s['bytes'] for s in $gs) == 8 * $want" \
  "sum(s['live_at_exit_bytes'] for s in $gs) == 4 * $want" \
  "sum(s['allocs'] for s in m['sites']) == m['allocs']"

# A budget that is not a size: one line, and the default budget (the report is whole).
err=$(TPROF_MEMORY_BUDGET=lots TPROF_JSON_SITES=0 TPROF_OUTPUT=none TPROF_JSON="$WORK/bad.json" LD_PRELOAD="$TPROF_SO" \
      "$V" 2>&1 >/dev/null) || fail "victim failed with a bad budget"
[ "$err" = "tprof: TPROF_MEMORY_BUDGET=lots: not a size; using max(5% of peak RSS, 64M)" ] ||
  fail "not one clear line for a bad TPROF_MEMORY_BUDGET: $err"
jcheck "$WORK/bad.json" "not d['partial']" "len($gs) == 4096"
exit 0
