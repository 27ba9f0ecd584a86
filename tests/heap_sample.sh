#!/bin/sh
# The sampled heap mode (TPROF_SAMPLE=32k) on tests/victims/v_sample, over the fixed seeds 1-40
# (TPROF_SAMPLE_SEED), so that the outcome is the same on every run and machine:
# - per site (site_a: 4,000 x 1,000 B; site_b: 100,000 x 40 B; site_c: 24 x 256 KiB, 12 leaked),
#   the estimated bytes and allocations fall within their stated 95% error in at least 90% of the
#   seed-site pairs, and the mean over the seeds is within 3 standard errors of the truth;
# - every seed: the global peak (usable sizes) is the victim's own exactly, and the frees; the
#   allocation, byte and live-block counts are those of the exact mode (the victim's plus the
#   thread's DTV and the stdout buffer, which the victim cannot see), the live bytes the victim's
#   plus those two's; blocks freed by another thread, realloc across the mean and the aligned
#   family included;
# - the text report says the figures are estimated, and tprof report reads the JSON back;
# - tprof merge keeps them estimates; two threads churning get the exact mode's counts.
. "$TS/lib.sh"
V="$TB/victims/v_sample"
tp TPROF_JSON="$WORK/exact.json" LD_PRELOAD="$TPROF_SO" "$V" >"$WORK/exact.out" ||
    fail "victim failed exact"
for seed in $(seq 1 40); do
    tp TPROF_SAMPLE=32k TPROF_SAMPLE_SEED=$seed TPROF_JSON="$WORK/s$seed.json" \
        LD_PRELOAD="$TPROF_SO" "$V" >"$WORK/s$seed.out" || fail "victim failed, seed $seed"
done
python3 - "$WORK" <<'EOF' || fail "sampled figures"
import json, math, sys
w = sys.argv[1]
truth = {"site_a": (4000, 4000000), "site_b": (100000, 4000000), "site_c": (24, 24 << 18)}
exact = json.load(open(f"{w}/exact.json"))["memory"]
bad, covered, cases, ests = [], 0, 0, {k: [] for k in truth}
for seed in range(1, 41):
    m = json.load(open(f"{w}/s{seed}.json"))["memory"]
    t = dict(kv.split("=") for kv in open(f"{w}/s{seed}.out").read().split()[1:])
    if m["sampling"] != {"mean_bytes": 32768, "seed": seed, "samples": m["sampling"]["samples"]}:
        bad.append(f"seed {seed}: sampling {m['sampling']}")
    for k, want in (("peak_bytes", int(t["peak"])), ("live_at_exit_bytes", None),
                    ("allocs", exact["allocs"]), ("frees", exact["frees"]),
                    ("bytes_allocated", exact["bytes_allocated"]),
                    ("live_at_exit_allocs", exact["live_at_exit_allocs"])):
        if want is None:
            # the victim's live blocks, and the DTV and stdout buffer it cannot see: their usable
            # sizes, a little over what was asked (the DTV's is, with tprof's own TLS modules)
            lo = int(t["live"])
            hi = lo + exact["live_at_exit_system_bytes"] + 1024
            ok = lo < m[k] <= hi
        else:
            ok = m[k] == want
        if not ok:
            bad.append(f"seed {seed}: {k} {m[k]} != {want}")
    if int(t["frees"]) != m["frees"]:
        bad.append(f"seed {seed}: frees {m['frees']} != the victim's {t['frees']}")
    for fn, (n, b) in truth.items():
        s = [s for s in m["sites"] if s["frames"][0].get("function") == fn]
        if len(s) != 1 or "estimate" not in s[0]:
            bad.append(f"seed {seed}: {fn}: {len(s)} sites")
            continue
        s = s[0]
        e = s["estimate"]["error_pct"] / 100
        for got, want in ((s["bytes"], b), (s["allocs"], n)):
            cases += 1
            covered += abs(got - want) <= e * want + 1
        ests[fn].append((s["bytes"], s["estimate"]["error_pct"]))
        if fn == "site_c":
            le = s["estimate"]["live_error_pct"] / 100
            cases += 1
            covered += abs(s["live_at_exit_bytes"] - (12 << 18)) <= le * (12 << 18) + 1
if cases < 40 * 7 or covered < 0.9 * cases:
    bad.append(f"{covered} of {cases} estimates within their stated 95% error")
for fn, v in ests.items():
    mean = sum(x for x, _ in v) / len(v)
    # the stated error is 1.96 standard errors of one estimate; the mean's is sqrt(40) smaller
    se = sum(e for _, e in v) / len(v) / 100 / 1.96 * truth[fn][1] / math.sqrt(len(v))
    if abs(mean - truth[fn][1]) > 3 * se + 1:
        bad.append(f"{fn}: mean estimate {mean:.0f} vs {truth[fn][1]} (3 se = {3 * se:.0f})")
print(f"{covered} of {cases} estimates within their stated error")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
# The text report never shows an estimate as exact.
tp TPROF_SAMPLE=32k TPROF_SAMPLE_SEED=7 TPROF_OUTPUT="$WORK/s.txt" TPROF_JSON="$WORK/s.json" \
    LD_PRELOAD="$TPROF_SO" "$V" >/dev/null || fail "victim failed"
grep -q 'sampled heap (TPROF_SAMPLE=32.0 KiB, seed 7)' "$WORK/s.txt" || fail "no sampling line: $(cat "$WORK/s.txt")"
grep -q 'site_a.*estimated, +-[0-9.]*% at 95%' "$WORK/s.txt" ||
    fail "site_a not marked estimated: $(cat "$WORK/s.txt")"
jcheck "$WORK/s.json" "'; an estimated 6.00 MiB of it from site_c' in d['verdict']['text']" \
  "'At exit, program (estimated from samples): about ' in d['verdict']['text']"
"$TPROF_CLI" report "$WORK/s.json" >"$WORK/again.txt" || fail "tprof report failed"
grep -q 'site_a.*estimated, +-[0-9.]*% at 95%' "$WORK/again.txt" || fail "tprof report lost the estimate"
# Merged runs stay estimates: the samples add up, the variances add (the error shrinks).
"$TPROF_CLI" merge "$WORK/s1.json" "$WORK/s2.json" -o "$WORK/m.json" || fail "tprof merge failed"
python3 - "$WORK" <<'EOF' || fail "merged estimates"
import json, sys
w = sys.argv[1]
def a(f):
    m = json.load(open(f"{w}/{f}.json"))["memory"]
    return m, [s for s in m["sites"] if s["frames"][0].get("function") == "site_a"][0]
(m1, s1), (m2, s2), (m, s) = a("s1"), a("s2"), a("m")
assert m["sampling"]["samples"] == m1["sampling"]["samples"] + m2["sampling"]["samples"], m["sampling"]
assert s["estimate"]["samples"] == s1["estimate"]["samples"] + s2["estimate"]["samples"], s
assert s["bytes"] == s1["bytes"] + s2["bytes"], s
assert s["estimate"]["error_pct"] < min(s1["estimate"]["error_pct"], s2["estimate"]["error_pct"]), s
EOF
# Two threads churning: the sampled mode's counts are the exact mode's, to the byte.
C="$TB/../bench/churn"
for mode in exact sampled; do
    s=""
    [ $mode = sampled ] && s="TPROF_SAMPLE=64k"
    # shellcheck disable=SC2086 # $s is one assignment or none
    tp $s TPROF_JSON="$WORK/c.$mode.json" LD_PRELOAD="$TPROF_SO" "$C" --ops 100000 --threads 2 \
        --min 64 --max 4096 >/dev/null || fail "churn failed ($mode)"
done
python3 - "$WORK" <<'EOF' || fail "2-thread counts differ"
import json, sys
e, s = (json.load(open(f"{sys.argv[1]}/c.{m}.json"))["memory"] for m in ("exact", "sampled"))
for k in ("allocs", "frees", "bytes_allocated", "live_at_exit_allocs"):
    assert e[k] == s[k], (k, e[k], s[k])
assert s["sampling"]["samples"] > 0
EOF
exit 0
