#!/bin/sh
# tprof diff for CI: an op made 20% slower by an injected delay (tpdiff_layer sleeping 60 ms a
# call instead of 50, 10 calls) is a significant regression past 5%: --max-regress 5% lists it
# and exits 1; a rerun of the same program has none and exits 0, with its unchanged rows hidden
# (--all shows them); bad input exits 2; --format json has the intervals and the regressions;
# reports of different programs get a warning line.
. "$TS/lib.sh"
V="$TB/victims/v_longnames"
run() { # json us
  out=$(TPROF_OUTPUT=none TPROF_JSON="$1" LD_PRELOAD="$TPROF_SO" "$V" 10 "$2" 2> "$WORK/err") ||
    fail "victim failed: $(cat "$WORK/err")"
  [ "$out" = done ] || fail "stdout changed: $out"
}
run "$WORK/a.json" 50000
run "$WORK/b.json" 60000
run "$WORK/c.json" 50000
jcheck "$WORK/b.json" "ops['tpdiff_layer']['calls'] == 10 and ops['tpdiff_layer']['latency_ns']['n'] == 9"
T="$TPROF_CLI"
"$T" diff --max-regress 5% "$WORK/a.json" "$WORK/b.json" > "$WORK/ab.txt"
rc=$?
[ $rc = 1 ] || fail "a 20% slower op: exit $rc, not 1: $(cat "$WORK/ab.txt")"
grep -q '^REGRESSIONS past 5% (significant):$' "$WORK/ab.txt" || fail "no REGRESSIONS: $(cat "$WORK/ab.txt")"
# 20% injected; a loaded machine's late wake-ups move it by a few points
grep -Eq '^op tpdiff_layer: self time \+(1[5-9]|2[0-9])\.[0-9]%, time per call \+(1[5-9]|2[0-9])\.[0-9]% \(95% interval \+[0-9.]+% to \+[0-9.]+%\)$' "$WORK/ab.txt" ||
  fail "the regression line: $(grep '^op ' "$WORK/ab.txt")"
grep -Eq '^  time per call \+(1[5-9]|2[0-9])\.[0-9]% \(95% interval \+[0-9.]+% to \+[0-9.]+%\): significant$' "$WORK/ab.txt" ||
  fail "the op's change and interval: $(grep 'time per call' "$WORK/ab.txt")"
"$T" diff --max-regress 5 "$WORK/a.json" "$WORK/c.json" > "$WORK/ac.txt"
rc=$?
[ $rc = 0 ] || fail "a rerun: exit $rc, not 0: $(cat "$WORK/ac.txt")"
grep -q '^no significant regression past 5%$' "$WORK/ac.txt" || fail "rerun: $(tail -3 "$WORK/ac.txt")"
grep -q '^tpdiff_layer' "$WORK/ac.txt" && ! grep -q 'time per call.*: significant$' "$WORK/ac.txt" &&
  fail "an op without a significant change shown: $(cat "$WORK/ac.txt")"
"$T" diff --all "$WORK/a.json" "$WORK/c.json" | grep -q '^tpdiff_layer' || fail "--all does not show the op"
# 50% is past the change: no regression
"$T" diff --max-regress 50% "$WORK/a.json" "$WORK/b.json" > /dev/null || fail "--max-regress 50%: exit $?"
# JSON: the interval, the flags, the regressions
"$T" diff --format json --max-regress 5% "$WORK/a.json" "$WORK/b.json" > "$WORK/ab.json"
[ $? = 1 ] || fail "--format json: not exit 1"
python3 - "$WORK/ab.json" << 'PY' || fail "diff JSON"
import json, sys
d = json.load(open(sys.argv[1]))
op = [o for o in d["ops"] if o["name"] == "tpdiff_layer"][0]
pc = op["per_call"]
assert pc["significant"] and 0.15 < pc["change"] < 0.30 and pc["ci_lo"] <= pc["change"] <= pc["ci_hi"], pc
assert op["changed"] is True
assert d["max_regress_pct"] == 5 and len(d["regressions"]) == 1, d["regressions"]
assert d["regressions"][0].startswith("op tpdiff_layer: self time +"), d["regressions"]
assert d["warnings"] == [] and d["step_median"] is None
PY
# bad input: 2, one line
"$T" diff --max-regress lots "$WORK/a.json" "$WORK/b.json" > /dev/null 2> "$WORK/e"
[ $? = 2 ] && [ "$(wc -l < "$WORK/e")" = 1 ] || fail "bad --max-regress: $(cat "$WORK/e")"
echo '{"schema": 1' > "$WORK/bad.json"
"$T" diff --max-regress 5 "$WORK/a.json" "$WORK/bad.json" > /dev/null 2> "$WORK/e"
[ $? = 2 ] || fail "a truncated report: not exit 2: $(cat "$WORK/e")"
# different programs: one warning line
TPROF_OUTPUT=none TPROF_JSON="$WORK/o.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" > /dev/null 2>&1 ||
  fail "v_sites failed"
"$T" diff "$WORK/a.json" "$WORK/o.json" > "$WORK/ao.txt" || fail "diff of two programs failed"
grep -q "^warning: different programs: v_longnames before, v_sites after$" "$WORK/ao.txt" ||
  fail "no warning for different programs: $(head -3 "$WORK/ao.txt")"
# an op with one call after warm-up on a side: no interval, the row shown, and no regression
python3 - "$WORK/a.json" "$WORK/one.json" << 'PY' || fail "cannot make the one-call report"
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["ops"]:
    o["latency_ns"]["n"] = 1
json.dump(d, open(sys.argv[2], "w"))
PY
"$T" diff --max-regress 5 "$WORK/one.json" "$WORK/b.json" > "$WORK/one.txt" || fail "one call: not exit 0"
grep -qx '  time per call: too few calls for an interval' "$WORK/one.txt" ||
  fail "no word on the missing interval: $(cat "$WORK/one.txt")"
# a report against itself: nothing changed, every row hidden, two lines say so
"$T" diff "$WORK/a.json" "$WORK/a.json" > "$WORK/aa.txt" || fail "diff of a report with itself failed"
grep -qx '(1 op without a significant change hidden; --all shows them)' "$WORK/aa.txt" ||
  fail "no line for the hidden op: $(cat "$WORK/aa.txt")"
grep -Eq '^\([0-9]+ call sites? with the same figures hidden; --all shows them\)$' "$WORK/aa.txt" ||
  fail "no line for the hidden sites: $(cat "$WORK/aa.txt")"
# the step's median and the heap peak (figures set in copies of a report): a significant rise of
# the median past 5% and a 30% higher peak are regressions, with their lines
python3 - "$WORK/a.json" "$WORK/s1.json" "$WORK/s2.json" << 'PY' || fail "cannot make the step reports"
import json, sys
d = json.load(open(sys.argv[1]))
def steps(p50, lo, hi):
    d["steps"].update(name="train_step", count=20, warmup=1)
    d["steps"]["latency_ns"].update(n=19, min=p50, p50=p50, p95=p50, p99=p50, max=p50, mean=p50,
                                    stddev=0, p50_ci_lo=lo, p50_ci_hi=hi)
steps(10000000, 9900000, 10100000)
d["memory"]["peak_bytes"] = 1000
json.dump(d, open(sys.argv[2], "w"))
steps(12000000, 11900000, 12100000)
d["memory"]["peak_bytes"] = 1300
json.dump(d, open(sys.argv[3], "w"))
PY
"$T" diff --max-regress 5 "$WORK/s1.json" "$WORK/s2.json" > "$WORK/s.txt"
[ $? = 1 ] || fail "a step 20% slower and a peak 30% higher: not exit 1: $(cat "$WORK/s.txt")"
grep -qx 'step median 10.0 ms -> 12.0 ms, +20.0% (95% interval +18.0% to +22.0%): significant' "$WORK/s.txt" ||
  fail "the step median line: $(grep -i 'step median' "$WORK/s.txt")"
grep -qx 'step median +20.0% (95% intervals apart)' "$WORK/s.txt" || fail "the step's regression line"
grep -qx 'heap peak +30.0% (1000 -> 1300 bytes)' "$WORK/s.txt" || fail "the heap peak's regression line"
# another machine (its CPU model and peaks): one warning line
python3 - "$WORK/a.json" "$WORK/a2.json" "$WORK/m.json" << 'PY' || fail "cannot make the two machines' reports"
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"].update(cpu_model="Some CPU", peak_gflops=100.0, peak_gbps=10.0)
json.dump(d, open(sys.argv[2], "w"))
d["machine"].update(cpu_model="Other CPU", peak_gflops=200.0)
json.dump(d, open(sys.argv[3], "w"))
PY
"$T" diff "$WORK/a2.json" "$WORK/m.json" > "$WORK/am.txt" || fail "diff of two machines failed"
tr '\n' ' ' < "$WORK/am.txt" | tr -s ' ' |
  grep -q "warning: different machines: Some CPU, 100 GFLOP/s, 10.0 GB/s before; Other CPU, 200 GFLOP/s, 10.0 GB/s after" ||
  fail "no warning for different machines: $(head -3 "$WORK/am.txt")"
exit 0
