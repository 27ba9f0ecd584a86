#!/bin/bash
# bench/run.sh in its smallest form, so that the benchmark keeps working: it must exit 0 and print
# its one table with every row, each cell a ratio or an n/a whose reason is printed below, the
# memory and exit-report figures, and every target line. No figure is asserted: timings are
# measurements, not tests (and these runs are far too short to mean anything).
. "$TS/lib.sh"
B=$(cd "$TB/.." && pwd)
out=$(QUICK=1 REPS=1 OPS=2000 LIVE=2000 CALLS=20000 BLAS_STEPS=2 SITES=1000 \
    EX_STEPS="mlp=1 cnn=1 transformer=1" bash "$TS/../bench/run.sh" "$B" 2> "$WORK/err") ||
    fail "bench/run.sh failed: $(head -5 "$WORK/err")"
printf '%s\n' "$out" > "$WORK/out"
python3 - "$WORK/out" <<'PY' || fail "bench/run.sh printed an unexpected table: $(cat "$WORK/out")"
import re, sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("workload"))
assert lines[head].split() == ["workload", "measure", "native", "tprof", "tprof", "S=1", "heaptrack", "uftrace"], lines[head]
labels = ["alloc churn, 1 thread", "alloc churn, 2 threads", "sgemm-bound MLP", "instrumented-call storm",
          "examples/mlp", "examples/cnn", "examples/transformer"]
rows = lines[head + 1:head + 1 + len(labels)]
used = set()
for label, row in zip(labels, rows):
    assert row.startswith(label), (label, row)
    measure = row[27:35].strip()
    assert measure in ("s wall", "s loop", "ns/call"), row
    vals = re.sub(r"n/a \((\w)\)", r"n/a(\1)", row[35:]).split()
    assert len(vals) == 5, row
    for i, v in enumerate(vals):
        m = re.fullmatch(r"n/a\((\w)\)", v)
        if m:
            used.add(m.group(1))
        elif v == "-":
            assert vals[0].startswith("n/a"), row
        elif i == 0:
            assert re.fullmatch(r"\d+\.\d+", v), row
        else:
            assert re.fullmatch(r"\d+\.\d\dx", v), row
    if "churn" in label or "MLP" in label:
        assert vals[4].startswith("n/a"), "uftrace has no figure for " + label
for k in used:
    assert re.search(r"^\(%s\) " % k, text, re.M), "no note for n/a (%s)" % k
assert re.search(r"^  bytes per live allocation: -?\d+\.\d above", text, re.M)
assert re.search(r"^exit report \(TPROF_JSON on\) of a program with \d+ call sites: \d+\.\d\d ms", text, re.M)
verdicts = [l for l in lines if re.match(r"^  (PASS|MISS|n/a ) ", l)]
want = ["1 thread(s): tprof at the default depth", "1 thread(s): tprof at TPROF_STACK=1",
        "2 thread(s): tprof at the default depth", "2 thread(s): tprof at TPROF_STACK=1",
        "sgemm-bound MLP", "bytes per live allocation,", "grown by", "exit report at"]
for w in want:
    assert any(w in l for l in verdicts), "no target line for " + w
PY
exit 0
