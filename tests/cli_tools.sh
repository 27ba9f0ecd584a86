#!/bin/sh
# tprof report, diff and merge on fixture reports: exact figures, and a round trip through JSON.
. "$TS/lib.sh"
A="$TS/fixtures/a.json"; B="$TS/fixtures/b.json"
T="$TPROF_CLI"

# report: text has the sections, JSON round-trips to the same model
"$T" report "$A" > "$WORK/a.txt" || fail "report failed"
for s in VERDICT "OPS (by self time)" "LATENCY per call" "MEMORY" "CALL SITES" "LEAKS"; do
  grep -q "$s" "$WORK/a.txt" || fail "report lacks section '$s'"
done
awk 'length > 100 { bad = 1 } END { exit bad }' "$WORK/a.txt" || fail "a report line is wider than 100 columns"
grep -q '^gemm  *matmul  *10  *1.00 ms  *800 us  *40.0%' "$WORK/a.txt" || fail "gemm row wrong: $(grep '^gemm' "$WORK/a.txt")"
"$T" report "$A" --format json > "$WORK/a1.json" || fail "report --format json failed"
"$T" report "$WORK/a1.json" --format json > "$WORK/a2.json" || fail "second round trip failed"
cmp -s "$WORK/a1.json" "$WORK/a2.json" || fail "JSON -> model -> JSON is not stable"
jcheck "$WORK/a1.json" "ops['gemm']['calls'] == 10" "ops['gemm']['gflops'] == 5000" \
  "ops['gemm']['intensity'] == 50" "ops['gemm']['bound'] == 'compute'" \
  "ops['gemm']['self_share'] == 0.4" "abs(d['verdict']['amdahl'][0]['speedup_2x'] - 1/(0.6+0.2)) < 1e-12" \
  "d['verdict']['amdahl'][0]['speedup_max'] == 1/0.6" "m['sites'][0]['frames'][0]['function'] == 'alloc_weights'"
"$T" report "$A" --peak-gflops 1000 --peak-gbps 1 --format json > "$WORK/a3.json" || fail "peaks override failed"
jcheck "$WORK/a3.json" "ops['gemm']['bound'] == 'memory'" "ops['gemm']['attainable_gflops'] == 50" \
  "d['machine']['source'] == 'command line'"
"$T" report - < "$A" > /dev/null || fail "report from stdin failed"

# diff: exact deltas, sorted by impact, added and removed
"$T" diff "$A" "$B" --format json > "$WORK/d.json" || fail "diff failed"
python3 - "$WORK/d.json" <<'PY' || fail "diff figures"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["wall_ns"] == [2000000, 1000000] and d["peak_bytes"] == [5000, 7500], d
assert [o["name"] for o in d["ops"]] == ["gemm", "conv", "relu"], d["ops"]
assert d["ops"][0]["total_ns"] == [1000000, 500000] and d["ops"][0]["status"] == "both"
assert d["ops"][1]["status"] == "removed" and d["ops"][2]["status"] == "added"
assert d["ops"][0]["gflops"] == [5000, 10000]
s = d["sites"]
assert s[0]["key"].startswith("alloc_act@/src/model.c:20") and s[0]["peak_live_bytes"] == [2000, 6000], s[0]
assert s[1]["status"] == "added" and s[1]["peak_live_bytes"] == [0, 500], s[1]
assert s[2]["peak_live_bytes"] == [4000, 4000]
PY
"$T" diff "$A" "$B" | grep -q 'heap peak .*(+50.0%)' || fail "diff text lacks the heap change"

# merge: sums, spread and imbalance
"$T" merge "$A" "$B" -o "$WORK/m.json" || fail "merge failed"
jcheck "$WORK/m.json" "d['merged_processes'] == 2" "ops['gemm']['calls'] == 20" \
  "ops['gemm']['total_ns'] == 1500000" "ops['gemm']['nprocs'] == 2" \
  "ops['gemm']['proc_min_ns'] == 500000" "ops['gemm']['proc_max_ns'] == 1000000" \
  "ops['gemm']['proc_mean_ns'] == 750000" "abs(ops['gemm']['imbalance'] - 4/3) < 1e-12" \
  "ops['conv']['proc_min_ns'] == 0 and ops['conv']['imbalance'] == 2" \
  "ops['gemm']['latency_ns']['n'] == 18 and ops['gemm']['latency_ns']['min'] == 45000" \
  "ops['gemm']['latency_ns']['max'] == 120000 and ops['gemm']['latency_ns']['mean'] == 75000" \
  "ops['gemm']['shapes'][0]['calls'] == 20" "m['peak_bytes'] == 7500" "m['allocs'] == 24" \
  "site('alloc_act')['bytes'] == 40000" "site('alloc_cache')['allocs'] == 2" \
  "d['program']['wall_ns'] == 2000000"
"$T" report "$WORK/m.json" | grep -q 'imbalance' || fail "merged report does not show the imbalance"
