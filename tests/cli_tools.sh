#!/bin/sh
# tprof report, diff and merge on the hand-made fixture reports a.json (before, rank 0),
# b.json (after, rank 1) and c.json (rank 2): exact figures, 100-column text, JSON round trips.
. "$TS/lib.sh"
A="$TS/fixtures/a.json"; B="$TS/fixtures/b.json"; C="$TS/fixtures/c.json"
T="$TPROF_CLI"
narrow() { awk -v f="$1" 'length > 100 { print f ": line " NR " is " length " columns"; bad = 1 } END { exit bad }' "$1" ||
  fail "$1 is wider than 100 columns"; }

# --help of every subcommand: exit 0, usage on stdout
for c in report diff merge run calibrate; do
  "$T" $c --help > "$WORK/help.txt" 2>&1 || fail "tprof $c --help exited $?"
  grep -q "usage: tprof $c" "$WORK/help.txt" || fail "tprof $c --help: no usage line"
done

# ---- report ----
"$T" report "$A" > "$WORK/a.txt" || fail "report failed"
for s in VERDICT "OPS (by self time)" "LATENCY per call" "MEMORY" "CALL SITES" "LEAKS"; do
  grep -q "$s" "$WORK/a.txt" || fail "report lacks section '$s'"
done
narrow "$WORK/a.txt"
# gemm: 10 calls, 1 ms total, 800 us self = 40% of 2 ms, 5e7 FLOP / 1 ms = 50 GFLOP/s,
# intensity 50 > ridge 10: compute-bound at 50% of 100 GFLOP/s.
grep -q '^gemm  *matmul  *10  *1.00 ms  *800 us  *40.0%  *50.00  *50.0 compute  *50$' "$WORK/a.txt" ||
  fail "gemm row: $(grep '^gemm' "$WORK/a.txt")"
"$T" report "$A" --format json > "$WORK/a1.json" || fail "report --format json failed"
"$T" report "$WORK/a1.json" --format json > "$WORK/a2.json" || fail "second round trip failed"
cmp -s "$WORK/a1.json" "$WORK/a2.json" || fail "JSON -> model -> JSON is not stable"
jcheck "$WORK/a1.json" "ops['gemm']['calls'] == 10" "ops['gemm']['gflops'] == 50" \
  "ops['gemm']['intensity'] == 50" "ops['gemm']['bound'] == 'compute'" \
  "ops['gemm']['efficiency'] == 0.5" "ops['gemm']['self_share'] == 0.4" \
  "ops['conv']['bound'] == 'unknown'" "d['verdict']['op'] == 'gemm'" \
  "d['verdict']['amdahl'][0]['speedup_2x'] == 1/(0.6+0.4/2)" \
  "d['verdict']['amdahl'][0]['speedup_max'] == 1/0.6" \
  "m['sites'][0]['frames'][0]['function'] == 'alloc_weights'" \
  "d['steps']['latency_ns']['stddev'] == 50000" "d['program']['start_unix_ns'] == 1700000000000000000"
# New peaks re-derive the roofline: at 1000 GFLOP/s and 1 GB/s the ridge is 1000, so gemm
# (intensity 50) turns memory-bound with 50 GFLOP/s attainable.
"$T" report "$A" --peak-gflops 1000 --peak-gbps 1 --format json > "$WORK/a3.json" || fail "peaks override failed"
jcheck "$WORK/a3.json" "ops['gemm']['bound'] == 'memory'" "ops['gemm']['attainable_gflops'] == 50" \
  "ops['gemm']['efficiency'] == 1" "d['machine']['source'] == 'command line'"
"$T" report - < "$A" > "$WORK/stdin.txt" || fail "report from stdin failed"
cmp -s "$WORK/stdin.txt" "$WORK/a.txt" || fail "report from stdin differs from report of the file"
"$T" report "$A" --top 1 > "$WORK/top1.txt" || fail "report --top 1 failed"
[ "$(sed -n '/^OPS (by self time)/,/^$/p' "$WORK/top1.txt" | grep -c '^gemm\|^conv')" -eq 1 ] ||
  fail "--top 1 shows more than one op"

# ---- diff ----
"$T" diff "$A" "$B" --format json > "$WORK/d.json" || fail "diff failed"
python3 - "$WORK/d.json" <<'PY' || fail "diff figures"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "tprof-diff"
assert d["wall_ns"] == {"before": 2000000, "after": 1000000, "delta": -1000000, "pct": -50.0}, d["wall_ns"]
assert d["peak_bytes"] == {"before": 5000, "after": 7500, "delta": 2500, "pct": 50.0}
assert d["allocs"]["delta"] == 1 and abs(d["allocs"]["pct"] - 100 / 12) < 1e-12
# conv and gemm both lose 500 us of total time; conv loses more self time, so it comes first
assert [o["name"] for o in d["ops"]] == ["conv", "gemm", "relu"], d["ops"]
conv, gemm, relu = d["ops"]
assert conv["status"] == "removed" and relu["status"] == "added" and gemm["status"] == "both"
assert gemm["calls"] == {"before": 10, "after": 10, "delta": 0, "pct": 0.0}
assert gemm["total_ns"] == {"before": 1000000, "after": 500000, "delta": -500000, "pct": -50.0}
assert gemm["self_ns"] == {"before": 800000, "after": 400000, "delta": -400000, "pct": -50.0}
assert gemm["gflops"] == {"before": 50.0, "after": 100.0, "delta": 50.0, "pct": 100.0}
assert conv["total_ns"] == {"before": 500000, "after": None, "delta": -500000, "pct": None}
assert relu["calls"] == {"before": None, "after": 5, "delta": 5, "pct": None}
assert relu["gflops"] == {"before": None, "after": None, "delta": None, "pct": None}
s = d["sites"]
# by |change in own peak|: alloc_act +4000, alloc_cache +500 (added), openblas -100 (removed), weights 0
assert [x["key"] for x in s] == ["alloc_act@model.c:20|main@model.c:99",
    "alloc_cache@model.c:30|main@model.c:99", "libopenblas.so.0+0x12345|libopenblas.so.0+0x2000",
    "alloc_weights@model.c:10|main@model.c:99"], [x["key"] for x in s]
assert s[0]["peak_live_bytes"] == {"before": 2000, "after": 6000, "delta": 4000, "pct": 200.0}
assert s[0]["live_at_peak_bytes"] == {"before": 1000, "after": 3000, "delta": 2000, "pct": 200.0}
assert s[0]["bytes"]["delta"] == 20000 and s[0]["allocs"]["delta"] == 0
assert s[1]["status"] == "added" and s[1]["peak_live_bytes"]["after"] == 500
assert s[2]["status"] == "removed" and s[2]["peak_live_bytes"]["delta"] == -100
assert s[3]["status"] == "both" and s[3]["peak_live_bytes"]["delta"] == 0
assert s[0]["frames"][0] == {"function": "alloc_act", "file": "/src/model.c", "line": 20,
                             "module": "/opt/m/model", "offset": 4116}
PY
"$T" diff "$A" "$B" > "$WORK/d.txt" || fail "diff text failed"
narrow "$WORK/d.txt"
grep -q '^heap peak  *4.88 KiB  *7.32 KiB  *+2.44 KiB (+50.0%)$' "$WORK/d.txt" || fail "diff: heap peak line"
grep -q '^wall time  *2.00 ms  *1.00 ms  *-1.00 ms (-50.0%)$' "$WORK/d.txt" || fail "diff: wall time line"
sed -n '/^gemm \[matmul\]$/,+4p' "$WORK/d.txt" > "$WORK/gemm.txt"
grep -q '^  time per call -50.0% (95% interval -57.9% to -42.1%): significant$' "$WORK/gemm.txt" ||
  fail "diff: gemm's change per call: $(cat "$WORK/gemm.txt")"
grep -q '^  before  *10  *1.00 ms  *800 us  *50.00$' "$WORK/gemm.txt" || fail "diff: gemm before: $(cat "$WORK/gemm.txt")"
grep -q '^  after  *10  *500 us  *400 us  *100.00$' "$WORK/gemm.txt" || fail "diff: gemm after"
grep -q '^  change  *same  *-500 us (-50.0%)  *-400 us (-50.0%)  *+50.00 (+100%)$' "$WORK/gemm.txt" ||
  fail "diff: gemm change: $(cat "$WORK/gemm.txt")"
grep -q '^relu \[op\]  (added)$' "$WORK/d.txt" || fail "diff: relu not marked added"
grep -q '^conv \[conv\]  (removed)$' "$WORK/d.txt" || fail "diff: conv not marked removed"
grep -q '^alloc_cache (model.c:30) <- main (model.c:99)  (added)$' "$WORK/d.txt" || fail "diff: added site"
"$T" diff "$A" "$B" --top 1 > "$WORK/d1.txt" || fail "diff --top 1 failed"
grep -q '^(2 more ops; --top shows more)$' "$WORK/d1.txt" || fail "diff --top 1: no 'more ops' line"
"$T" diff "$A" - < "$B" > "$WORK/d2.txt" || fail "diff with stdin failed"
"$T" diff "$A" "$A" --format json > "$WORK/same.json" || fail "diff of a report with itself failed"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert all(o['total_ns']['delta'] == 0 and o['status'] == 'both' for o in d['ops'])
assert all(s['peak_live_bytes']['delta'] == 0 for s in d['sites']) and d['wall_ns']['pct'] == 0
" "$WORK/same.json" || fail "a report diffed with itself shows changes"

# ---- merge ----
"$T" merge "$A" "$B" "$C" -o "$WORK/m.json" || fail "merge failed"
# Per op across the 3 processes: gemm 1.0 + 0.5 + 1.5 ms, mean 1 ms, max 1.5 ms: imbalance 1.5;
# conv 0.5 ms and 0.7 ms and none in b: min 0, mean 0.4 ms, imbalance 0.7 / 0.4 = 1.75.
# Latency of gemm: n 9+9+9, mean of means 100 us, pooled stddev
# sqrt((8*(1e4^2+5e3^2+1e4^2) + 9*(5e4^2+0+5e4^2)) / 26) = sqrt(1.8e9).
jcheck "$WORK/m.json" "d['merged_processes'] == 3" "d['partial'] == True" \
  "[o['name'] for o in d['ops']] == ['gemm', 'conv', 'relu']" \
  "ops['gemm']['calls'] == 30" "ops['gemm']['total_ns'] == 3000000" "ops['gemm']['self_ns'] == 2400000" \
  "ops['gemm']['flops'] == 150000000" "ops['gemm']['bytes'] == 3000000" \
  "ops['gemm']['warmup_calls'] == 3" "ops['gemm']['warmup_ns'] == 300000" \
  "ops['gemm']['alloc_bytes'] == 12288 and ops['gemm']['alloc_count'] == 6" \
  "ops['gemm']['nprocs'] == 3" "ops['gemm']['proc_min_ns'] == 500000" \
  "ops['gemm']['proc_max_ns'] == 1500000" "ops['gemm']['proc_mean_ns'] == 1000000" \
  "ops['gemm']['imbalance'] == 1.5" \
  "ops['conv']['nprocs'] == 3 and ops['conv']['proc_min_ns'] == 0" \
  "ops['conv']['proc_mean_ns'] == 400000 and ops['conv']['imbalance'] == 1.75" \
  "ops['relu']['proc_min_ns'] == 0 and ops['relu']['proc_max_ns'] == 100000 and ops['relu']['imbalance'] == 3" \
  "ops['gemm']['latency_ns']['n'] == 27" "ops['gemm']['latency_ns']['min'] == 45000" \
  "ops['gemm']['latency_ns']['max'] == 180000" "ops['gemm']['latency_ns']['mean'] == 100000" \
  "ops['gemm']['latency_ns']['p50'] == 100000" "ops['gemm']['latency_ns']['p95'] == 108333" \
  "ops['gemm']['latency_ns']['p99'] == 116667" \
  "abs(ops['gemm']['latency_ns']['stddev'] - 1.8e9 ** 0.5) < 1e-6" \
  "ops['gemm']['latency_ns']['p50_ci_lo'] == 47500 and ops['gemm']['latency_ns']['p50_ci_hi'] == 155000" \
  "ops['conv']['latency_ns']['mean'] == 137500 and ops['conv']['latency_ns']['p95'] == 155000" \
  "abs(ops['conv']['latency_ns']['stddev'] - (1.2525e10 / 7) ** 0.5) < 1e-6" \
  "[(s['desc'], s['calls'], s['total_ns'], s['flops'], s['bytes']) for s in ops['gemm']['shapes']] == [('64x64x64 NN row', 25, 2250000, 125000000, 2500000), ('128x64x64 NT col', 5, 750000, 25000000, 500000)]" \
  "m['peak_bytes'] == 7500 and m['peak_ns'] == 800000 and m['peak_op'] == 'gemm'" \
  "m['persistent_bytes'] == 4000 and m['transient_bytes'] == 3500" \
  "m['allocs'] == 37 and m['frees'] == 31 and m['bytes_allocated'] == 64700" \
  "m['live_at_exit_bytes'] == 12450 and m['live_at_exit_allocs'] == 6" \
  "m['peak_rss_bytes'] == 12582912 and m['unknown_frees'] == 1 and m['failed_allocs'] == 1" \
  "m['alloc_ns'] == 7500 and m['nsites_total'] == 6 and len(m['sites']) == 4" \
  "[s['frames'][0]['function'] for s in m['sites']] == ['alloc_weights', 'alloc_act', 'alloc_cache', None]" \
  "site('alloc_weights')['bytes'] == 12000 and site('alloc_weights')['live_at_peak_bytes'] == 12000" \
  "site('alloc_act')['allocs'] == 30 and site('alloc_act')['bytes'] == 52000" \
  "site('alloc_act')['peak_live_bytes'] == 11000 and site('alloc_act')['live_at_peak_bytes'] == 6000" \
  "m['sites'][3]['allocs'] == 2 and m['sites'][3]['live_at_exit_bytes'] == 200" \
  "d['program']['wall_ns'] == 3000000 and d['program']['threads'] == 4" \
  "d['program']['argv'] == ['./model', '--steps', '3'] and d['program']['host'] == 'node1'" \
  "d['program']['start_unix_ns'] == 1699999999000000000" \
  "d['steps']['count'] == 6 and d['steps']['warmup'] == 2 and d['steps']['name'] == 'train_step'" \
  "d['steps']['latency_ns']['n'] == 4 and d['steps']['latency_ns']['mean'] == 750000" \
  "d['steps']['latency_ns']['p50'] == 700000 and abs(d['steps']['latency_ns']['stddev'] - 1.5e10 ** 0.5) < 1e-6" \
  "'clock: tsc, invariant (in 2 of 3 inputs)' in d['notes']" \
  "any('add up to 18500 bytes' in n for n in d['notes'])" \
  "any('different machine peaks' in n for n in d['notes'])"
"$T" report "$WORK/m.json" > "$WORK/m.txt" || fail "report of the merged file failed"
grep -q '^merged from 3 processes' "$WORK/m.txt" || fail "merged report does not say it is merged"
grep -q '^gemm  *3  *500 us  *1.00 ms  *1.50 ms  *1.50x$' "$WORK/m.txt" ||
  fail "merged report does not show gemm's spread and imbalance: $(grep imbalance -A3 "$WORK/m.txt")"
# A merge of merges is the merge of all: merged inputs count with their processes and spread.
"$T" merge "$A" "$B" -o "$WORK/ab.json" || fail "merge a b failed"
"$T" merge "$WORK/ab.json" "$C" -o "$WORK/ab_c.json" || fail "merge (a b) c failed"
python3 - "$WORK/m.json" "$WORK/ab_c.json" <<'PY' || fail "merge of merges differs from the flat merge"
import json, sys
flat, nested = (json.load(open(p)) for p in sys.argv[1:])
assert flat["merged_processes"] == nested["merged_processes"] == 3
for k in ("ops", "memory", "steps", "program", "verdict"):
    assert flat[k] == nested[k], (k, flat[k], nested[k])
PY
"$T" merge "$A" -o - > "$WORK/one.json" || fail "merge -o - failed"
jcheck "$WORK/one.json" "d['merged_processes'] == 1" "ops['gemm']['imbalance'] == 1"
"$T" merge "$A" "$B" -o "$WORK/ro/none.json" 2> "$WORK/err.txt" && fail "merge into a missing directory succeeded"
grep -q "^tprof merge: cannot write $WORK/ro/none.json: No such file or directory$" "$WORK/err.txt" ||
  fail "merge write error: $(cat "$WORK/err.txt")"
exit 0
