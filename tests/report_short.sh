#!/bin/sh
# The default text report fits a 100x50 terminal and ends with the answer: the bundled CNN's is
# at most 50 lines, VERDICT is its last section, every note is one line, the top 5 ops are there
# and LATENCY, SHAPES, Amdahl, the heap chart and LEAKS are not; it names the JSON written and
# the command for the full report, which (--full, TPROF_DETAIL=full) has every section. Functions
# too short to time are one note with their count and names.
. "$TS/lib.sh"
unset TPROF_DETAIL
CNN="$TB/../examples/cnn"
TPROF_OUTPUT="$WORK/cnn.txt" TPROF_JSON="$WORK/cnn.json" LD_PRELOAD="$TPROF_SO" "$CNN" \
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
  ops=$(sed -n '/^OPS /,/^$/p' "$1" | grep -cE '^[a-z_0-9]+ +[a-z]+ +[0-9.]+k? ')
  [ "$ops" = 5 ] || fail "$2: $ops op rows, not 5: $(sed -n '/^OPS /,/^$/p' "$1")"
  grep -q '^   at peak   own peak   allocs      bytes  call site holding the peak (frame 0 allocated)$' "$1" ||
    fail "$2: no call sites"
}
check_short "$WORK/cnn.txt" "the run's text"
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
