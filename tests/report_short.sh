#!/bin/sh
# The default text report fits a 100x50 terminal and ends with the answer: the bundled CNN's is
# at most 50 lines, VERDICT is its last section, every note is one line, the top 5 ops are there
# and LATENCY, SHAPES, Amdahl, the heap chart and LEAKS are not; it names the JSON written and
# the command for the full report, which (--full, TPROF_DETAIL=full) has every section. Functions
# too short to time are one note with their count and names.
. "$TS/lib.sh"
unset TPROF_DETAIL
CNN="$TB/../examples/cnn"
TPROF_STEP=train_step TPROF_OUTPUT="$WORK/cnn.txt" TPROF_JSON="$WORK/cnn.json" LD_PRELOAD="$TPROF_SO" "$CNN" \
  > /dev/null 2> "$WORK/err" || fail "cnn failed: $(cat "$WORK/err")"
check_short() { # file what
  n=$(wc -l < "$1")
  [ "$n" -le 50 ] || fail "$2: $n lines: $(cat "$1")"
  last=$(grep -E '^[A-Z][A-Z ()]+ -{10,}$' "$1" | tail -1)
  case $last in VERDICT*) ;; *) fail "$2: the last section is not VERDICT: $last" ;; esac
  for s in LATENCY SHAPES LEAKS 'CALL SITES' STEPS; do
    grep -q "^$s.* ----" "$1" && fail "$2: a $s section in the short report"
  done
  grep -q '^Amdahl: if this op ran' "$1" && fail "$2: the Amdahl table in the short report"
  grep -q "^heap over time" "$1" && fail "$2: the heap chart in the short report"
  grep -A1 '^note: ' "$1" | grep -q '^      ' && fail "$2: a note on two lines: $(grep -A1 '^note: ' "$1")"
  awk 'length > 100 { exit 1 }' "$1" || fail "$2: a line over 100 columns"
  ops=$(sed -n '/^OPS /,/^$/p' "$1" | grep -cE '^[a-z_0-9]+ +([a-z]+ +)?[0-9.]+k? ')
  [ "$ops" = 5 ] || fail "$2: $ops op rows, not 5: $(sed -n '/^OPS /,/^$/p' "$1")"
  grep -q '^   at peak   own peak   allocs      bytes  call site holding the peak (frame 0 allocated)$' "$1" ||
    fail "$2: no call sites"
}
check_short "$WORK/cnn.txt" "the run's text"
grep -Eq '^STEPS: 100 of train_step: latency p50 [0-9.]+ [mun]?s, p95 [0-9.]+ [mun]?s \(warm-up left out\)$' "$WORK/cnn.txt" ||
  fail "no steps line: $(grep -A1 '^STEPS' "$WORK/cnn.txt")"
grep -Eq '^\([0-9]+ more sites in the full report and the JSON\)$' "$WORK/cnn.txt" ||
  fail "no line for the other sites: $(sed -n '/^MEMORY/,/^$/p' "$WORK/cnn.txt")"
# past the first note, one line says how many more there are (a last one is shown instead)
nn=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["notes"]))' "$WORK/cnn.json")
if [ "$nn" -gt 2 ]; then
  grep -qx "note: $((nn - 1)) more in the full report (TPROF_DETAIL=full, --full) and the JSON" "$WORK/cnn.txt" ||
    fail "$nn notes: $(grep '^note' "$WORK/cnn.txt")"
fi
# the text joined and its spaces squeezed: a line may wrap anywhere
tr '\n' ' ' < "$WORK/cnn.txt" | tr -s ' ' > "$WORK/flat"
grep -qF "written: JSON $WORK/cnn.json; the full report: tprof report --full $WORK/cnn.json" "$WORK/flat" ||
  fail "the JSON written or the command for the full report is not named: $(grep -A1 '^written' "$WORK/cnn.txt")"
# tprof report: the same short report by default, the full one with --full or TPROF_DETAIL=full
"$TPROF_CLI" report "$WORK/cnn.json" > "$WORK/short.txt" || fail "tprof report failed"
check_short "$WORK/short.txt" "tprof report"
"$TPROF_CLI" report --full "$WORK/cnn.json" > "$WORK/full.txt" || fail "tprof report --full failed"
TPROF_DETAIL=full "$TPROF_CLI" report "$WORK/cnn.json" > "$WORK/full2.txt" || fail "TPROF_DETAIL=full tprof report failed"
cmp -s "$WORK/full.txt" "$WORK/full2.txt" || fail "--full and TPROF_DETAIL=full differ"
for s in LATENCY SHAPES 'CALL SITES' LEAKS; do
  grep -q "^$s.* ----" "$WORK/full.txt" || fail "the full report has no $s section"
done
grep -q '^Amdahl: if this op ran' "$WORK/full.txt" || fail "the full report has no Amdahl table"
grep -q '^JSON report: ' "$WORK/full.txt" || fail "the full report does not name the JSON"
# --wide: the call sites' stacks whole (cut at the width without it)
"$TPROF_CLI" report --full --wide "$WORK/cnn.json" > "$WORK/wide.txt" || fail "tprof report --wide failed"
grep -Eq '^ .* ex_alloc \(layers\.c:19\) < train_step \(cnn\.c:[0-9]+\) < main \(cnn\.c:[0-9]+\)$' "$WORK/wide.txt" ||
  fail "--wide: no whole stack: $(sed -n '/^CALL SITES/,+4p' "$WORK/wide.txt")"
grep -Eq '< main\.\.\.$' "$WORK/full.txt" || fail "without --wide the stacks are not cut at the width"
TPROF_DETAIL=bogus "$TPROF_CLI" report "$WORK/cnn.json" > "$WORK/b.txt" 2> "$WORK/b.err" ||
  fail "a bad TPROF_DETAIL made tprof report fail"
[ "$(cat "$WORK/b.err")" = "tprof report: TPROF_DETAIL=bogus: expected short or full; the short report" ] ||
  fail "bad TPROF_DETAIL: $(cat "$WORK/b.err")"
cmp -s "$WORK/b.txt" "$WORK/short.txt" || fail "bad TPROF_DETAIL: not the short report"

grep -q '^the program: nothing$' "$WORK/full.txt" || fail "the full report's LEAKS: $(sed -n '/^LEAKS/,+3p' "$WORK/full.txt")"

# The program's leaks whose sites the report does not hold (rolled up, or dropped here): their
# bytes and blocks in one line, in either form.
TPROF_OUTPUT=none TPROF_JSON="$WORK/vs.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" > /dev/null 2>&1 ||
  fail "v_sites failed"
python3 - "$WORK/vs.json" "$WORK/vs2.json" << 'PY' || fail "cannot drop the leaking sites"
import json, sys
d = json.load(open(sys.argv[1]))
d["memory"]["sites"] = [s for s in d["memory"]["sites"] if not s["live_at_exit_bytes"] or s["system"]]
json.dump(d, open(sys.argv[2], "w"))
PY
"$TPROF_CLI" report "$WORK/vs2.json" | grep -Eq "^the program's leaks at exit: [0-9.]+ KiB in 3 blocks; their call sites are not in this report$" ||
  fail "short: the leaks without their sites: $("$TPROF_CLI" report "$WORK/vs2.json" | grep -i leak)"
"$TPROF_CLI" report --full "$WORK/vs2.json" | grep -Eq "^the program: [0-9.]+ KiB in 3 blocks; their call sites are not in this report$" ||
  fail "full: the leaks without their sites"

# a run that writes no JSON: the full report is TPROF_DETAIL's
TPROF_OUTPUT="$WORK/nj.txt" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" > /dev/null 2>&1 || fail "v_sites (text) failed"
grep -qx 'the full report (latency, shapes, steps, Amdahl, every site): TPROF_DETAIL=full' "$WORK/nj.txt" ||
  fail "no line for the full report without a JSON: $(tail -12 "$WORK/nj.txt")"
# A system library's site among the top three: [lib] and its legend in one line.
python3 - "$WORK/vs.json" "$WORK/vs3.json" << 'PY' || fail "cannot mark a system site"
import json, sys
d = json.load(open(sys.argv[1]))
d["memory"]["sites"][0]["system"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
"$TPROF_CLI" report "$WORK/vs3.json" > "$WORK/vs3.txt" || fail "tprof report (system site) failed"
grep -q '^ .*  \[lib\] ' "$WORK/vs3.txt" && grep -qx "\[lib\]: a system library's own keeping, not the program's data" "$WORK/vs3.txt" ||
  fail "the [lib] site or its legend: $(sed -n '/^MEMORY/,/^$/p' "$WORK/vs3.txt")"

# Notes: the functions too short to time in one line, with their count.
TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT="$WORK/t.txt" \
  TPROF_JSON="$WORK/t.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_adapt" tiny > /dev/null 2>&1 ||
  fail "v_adapt failed"
grep -Eq '^note: 2 functions counted, not timed \(too short: TPROF_DEMOTE\): (tiny_norm, lp_tiny_norm|lp_tiny_norm, tiny_norm)$' "$WORK/t.txt" ||
  fail "the counted functions' note: $(grep '^note' "$WORK/t.txt")"
grep -q ': 1000 calls of ~' "$WORK/t.txt" && fail "a counted function's own note in the short report"
TPROF_DETAIL=full "$TPROF_CLI" report "$WORK/t.json" | grep -q '^note: tiny_norm: 1000 calls of ~' ||
  fail "the full report lost the counted function's note"
exit 0
