#!/bin/sh
# The sampled heap (TPROF_SAMPLE, TPROF_SAMPLE_SEED) is gone: a run that sets it gets one line on
# stderr, once for the whole run and before the program's own output, and the heap recorded
# exactly; `tprof run --sample` the same. Reports the sampled mode wrote still read: tprof report
# shows their figures as the estimates they are, and tprof merge keeps them so.
. "$TS/lib.sh"
V="$TB/victims/v_sample"
one='tprof: TPROF_SAMPLE is no longer supported: the heap is recorded exactly (every block)'
both='tprof: TPROF_SAMPLE and TPROF_SAMPLE_SEED are no longer supported: the heap is recorded exactly (every block)'

# A shell that runs the victim twice: the line comes from the shell's own start, and neither
# child says it again.
tp TPROF_SAMPLE=512k LD_PRELOAD="$TPROF_SO" sh -c 'echo program >&2; "$1" && "$1"' sh "$V" \
    >/dev/null 2>"$WORK/s.err" || fail "victim failed"
printf '%s\nprogram\n' "$one" | cmp -s - "$WORK/s.err" || fail "stderr: $(cat "$WORK/s.err")"
# Recorded exactly: every site's own figures, no sampling.
tp TPROF_SAMPLE=512k TPROF_SAMPLE_SEED=1 TPROF_JSON="$WORK/s.json" LD_PRELOAD="$TPROF_SO" "$V" \
    >"$WORK/s.out" 2>"$WORK/s.err" || fail "victim failed"
[ "$(cat "$WORK/s.err")" = "$both" ] || fail "stderr: $(cat "$WORK/s.err")"
python3 - "$WORK/s.json" "$WORK/s.out" <<'PY' || fail "not exact"
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
t = dict(kv.split("=") for kv in open(sys.argv[2]).read().split()[1:])
assert "sampling" not in m, m.get("sampling")
want = {"site_a": (4000, 4000000), "site_b": (100000, 4000000), "site_c": (24, 24 << 18)}
for fn, (n, b) in want.items():
    s = [s for s in m["sites"] if s["frames"][0].get("function") == fn]
    assert len(s) == 1 and "estimate" not in s[0], (fn, s)
    assert (s[0]["allocs"], s[0]["bytes"]) == (n, b), (fn, s[0]["allocs"], s[0]["bytes"])
assert m["frees"] >= int(t["frees"]), (m["frees"], t)
PY

# tprof run: the flags are accepted, whatever their value, and said once.
"$TPROF_CLI" run --output none --sample 512k --sample-seed=3 -- "$V" >/dev/null 2>"$WORK/r.err" ||
    fail "tprof run --sample failed: $(cat "$WORK/r.err")"
[ "$(cat "$WORK/r.err")" = "$both" ] || fail "tprof run stderr: $(cat "$WORK/r.err")"
TPROF_SAMPLE=junk "$TPROF_CLI" run --output none -- "$V" >/dev/null 2>"$WORK/e.err" ||
    fail "tprof run with TPROF_SAMPLE=junk failed: $(cat "$WORK/e.err")"
[ "$(cat "$WORK/e.err")" = "$one" ] || fail "tprof run stderr (environment): $(cat "$WORK/e.err")"
"$TPROF_CLI" run --help | grep -q -- '--sample BYTES *no longer supported' || fail "run --help"

# A report of the sampled mode (tests/fixtures/sampled.json: tests/victims/v_sample at 32k, seed
# 7) reads back with its estimates marked.
F="$TS/fixtures/sampled.json"
"$TPROF_CLI" report "$F" >"$WORK/old.txt" || fail "tprof report of a sampled report failed"
grep -q 'sampled heap (TPROF_SAMPLE=32.0 KiB, seed 7)' "$WORK/old.txt" ||
    fail "no sampling line: $(cat "$WORK/old.txt")"
grep -q 'site_a.*estimated, +-[0-9.]*% at 95%' "$WORK/old.txt" || fail "site_a not marked estimated"
"$TPROF_CLI" merge "$F" "$F" -o "$WORK/m.json" || fail "tprof merge of sampled reports failed"
python3 - "$F" "$WORK/m.json" <<'PY' || fail "merged estimates"
import json, sys
def a(f):
    m = json.load(open(f))["memory"]
    return m, [s for s in m["sites"] if s["frames"][0].get("function") == "site_a"][0]
(m1, s1), (m, s) = a(sys.argv[1]), a(sys.argv[2])
assert m["sampling"]["samples"] == 2 * m1["sampling"]["samples"], m["sampling"]
assert s["estimate"]["samples"] == 2 * s1["estimate"]["samples"], s
assert s["estimate"]["error_pct"] < s1["estimate"]["error_pct"], s
PY
exit 0
