#!/bin/sh
# The library's quick measurement is made once per machine: with an empty cache the first
# profile measures the peaks and writes them to the per-host cache (method quick, no BLAS), a
# second profile reads them back without measuring (source quick-cache:<path>) and leaves the
# file as it was. Peaks given in TPROF_PEAK_* far below what an op reaches: the op's row and the
# verdict say so (the row here, the verdict in check_analyze), naming the given value, not a
# calibration to run.
. "$TS/lib.sh"
V="$TB/victims/v_api"
export XDG_CACHE_HOME="$WORK/xdg"
cache="$XDG_CACHE_HOME/tprof/peaks-$(uname -n)"

tp TPROF_JSON="$WORK/1.json" LD_PRELOAD="$TPROF_SO" "$V" >/dev/null 2>"$WORK/1.err" || fail "run 1 failed"
[ ! -s "$WORK/1.err" ] || fail "run 1 stderr: $(cat "$WORK/1.err")"
[ -f "$cache" ] || fail "run 1 wrote no cache"
jcheck "$WORK/1.json" "d['machine']['source'] == 'quick'" \
  "d['machine']['peak_gflops'] > 0 and d['machine']['peak_gbps'] > 0" \
  "any(n.startswith('machine peaks from a quick synthetic measurement at this exit') and '$cache' in n for n in d['notes'])"
python3 - "$cache" "$WORK/1.json" <<'PY' || fail "the cache run 1 wrote"
import json, sys
kv = dict(l.split(" ", 1) for l in open(sys.argv[1]).read().split("\n")[1:-1])
d = json.load(open(sys.argv[2]))
assert kv["method"] == "quick" and kv["blas"] == "-" and kv["sgemm_n"] == "0", kv
# the report's peaks are the cache's figures (3 decimals)
assert float(kv["peak_gflops"]) == d["machine"]["peak_gflops"], (kv, d["machine"])
assert float(kv["peak_gbps"]) == d["machine"]["peak_gbps"], (kv, d["machine"])
# one core's FMA peak times the cores (each kept with 3 decimals)
assert abs(float(kv["peak_gflops"]) - float(kv["peak_gflops_1t"]) * int(kv["threads"])) <= 0.001 * int(kv["threads"]), kv
PY
cp "$cache" "$WORK/before"
touch -d '2001-01-01' "$cache"
tp TPROF_JSON="$WORK/2.json" LD_PRELOAD="$TPROF_SO" "$V" >/dev/null 2>"$WORK/2.err" || fail "run 2 failed"
[ ! -s "$WORK/2.err" ] || fail "run 2 stderr: $(cat "$WORK/2.err")"
cmp -s "$cache" "$WORK/before" || fail "run 2 changed the cache"
[ "$(stat -c %Y "$cache")" = "$(date -d '2001-01-01' +%s)" ] || fail "run 2 rewrote the cache"
g=$(sed -n 's/^peak_gflops //p' "$cache")
jcheck "$WORK/2.json" "d['machine']['source'] == 'quick-cache:$cache'" "d['machine']['peak_gflops'] == $g" \
  "any(n.startswith('machine peaks from a quick synthetic measurement') and 'an earlier run cached in $cache' in n for n in d['notes'])"

# Absurdly low given peaks (1 kFLOP/s; the region reaches millions): above 100%, said on the row
# (">given" in place of the bound) and in words under the table, naming the value.
TPROF_PEAK_GFLOPS=0.000001 TPROF_PEAK_GBPS=1000 TPROF_OUTPUT="$WORK/t.txt" TPROF_JSON="$WORK/e.json" \
  LD_PRELOAD="$TPROF_SO" "$V" >/dev/null 2>&1 || fail "low-peaks run failed"
jcheck "$WORK/e.json" "d['machine']['source'] == 'env'" "ops['attention']['efficiency'] > 1" \
  "ops['attention']['bound'] == 'compute'"
row=$(grep -m1 '^attention  *region ' "$WORK/t.txt")
case $row in
*"   2.5 "*" >given") ;;
*) fail "attention's row does not explain its efficiency: $row" ;;
esac
grep -qx ">given: above 100% (compute-bound): the 1e-06 GFLOP/s given in TPROF_PEAK_GFLOPS is below what it" "$WORK/t.txt" ||
  fail "no legend under the table: $(sed -n '/^OPS/,/^LATENCY/p' "$WORK/t.txt")"
grep -q "calibrate" "$WORK/t.txt" && fail "given peaks, yet the report advises a calibration: $(grep calibrate "$WORK/t.txt")"
# (The verdict's sentence on it: tests/check_analyze.c, test_text_variants.)
exit 0
