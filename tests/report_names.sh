#!/bin/sh
# An op's name is never cut in the text report: three exports whose names share a 21-character
# prefix, longer than the name column, are each written whole on a line of their own, their
# figures on the next, in the short report's OPS table and in every table of the full one
# (OPS, LATENCY, Amdahl); no line ends a name with "...". A C++ name is folded to fit
# (nn::Conv<...>::run(...)), whole with --wide. On a wider terminal the name column grows.
. "$TS/lib.sh"
V="$TB/victims/v_longnames"
out=$(TPROF_DETAIL=short TPROF_OUTPUT="$WORK/s.txt" TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" 20 2> "$WORK/err") ||
  fail "victim failed: $(cat "$WORK/err")"
[ "$out" = done ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "all(ops['tplong_library_layer_' + n]['calls'] == 20 for n in ('forward', 'backward', 'update'))"
"$TPROF_CLI" report --full "$WORK/r.json" > "$WORK/f.txt" || fail "tprof report --full failed"
for f in s f; do
  grep -q 'tplong_library_lay[a-z_]*\.\.\.' "$WORK/$f.txt" && fail "a cut name ($f): $(grep 'tplong.*\.\.\.' "$WORK/$f.txt")"
  for n in forward backward update; do
    # the name alone on its line, the row's figures (calls 20) on the next
    awk -v n="tplong_library_layer_$n" 'found { if ($0 ~ /^ +[a-z]* *20 /) ok = 1; found = 0 } $0 == n { found = 1 } END { exit !ok }' "$WORK/$f.txt" ||
      fail "tplong_library_layer_$n is not whole above its OPS row ($f): $(sed -n '/^OPS/,/^$/p' "$WORK/$f.txt")"
  done
done
for n in forward backward update; do
  # whole in OPS and LATENCY (a line of its own) and in Amdahl (its wider column)
  [ "$(grep -cx "tplong_library_layer_$n" "$WORK/f.txt")" = 2 ] &&
    grep -Eq "^tplong_library_layer_$n +[0-9.]+%" "$WORK/f.txt" ||
    fail "tplong_library_layer_$n is not whole in OPS, LATENCY and Amdahl: $(grep "tplong_library_layer_$n" "$WORK/f.txt")"
done
awk 'length > 100 { exit 1 }' "$WORK/f.txt" || fail "a line over 100 columns"
# A C++ name too long for its column keeps its row with its template arguments and parameters
# folded; --wide writes it whole.
python3 - "$WORK/r.json" "$WORK/cxx.json" << 'PY' || fail "cannot make the C++ report"
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["ops"]:
    if o["name"] == "tplong_library_layer_update":
        o["name"] = "nn::Conv<float, 3>::run(int, int)"
json.dump(d, open(sys.argv[2], "w"))
PY
"$TPROF_CLI" report --full "$WORK/cxx.json" > "$WORK/cxx.txt" || fail "tprof report (C++) failed"
grep -Eq '^nn::Conv<\.\.\.>::run\(\.\.\.\) +[a-z]+ +20 ' "$WORK/cxx.txt" ||
  fail "no folded C++ name on its row: $(sed -n '/^OPS/,/^$/p' "$WORK/cxx.txt")"
"$TPROF_CLI" report --full --wide "$WORK/cxx.json" > "$WORK/cxxw.txt" || fail "tprof report --wide (C++) failed"
grep -qx 'nn::Conv<float, 3>::run(int, int)' "$WORK/cxxw.txt" || fail "--wide: the C++ name is not whole"
# On a terminal of 140 columns (a pseudo-terminal: script), the name column grows to the names:
# each op's row holds its name; no line passes the terminal's width.
if command -v script > /dev/null; then
  script -qec "stty cols 140 rows 50; '$TPROF_CLI' report --full '$WORK/r.json'" /dev/null | tr -d '\r' > "$WORK/t.txt" ||
    fail "tprof report on a terminal failed"
  for n in forward backward update; do
    grep -Eq "^tplong_library_layer_$n +[a-z]+ +20 " "$WORK/t.txt" ||
      fail "on a 140-column terminal, tplong_library_layer_$n is not on its row: $(sed -n '/^OPS/,/^$/p' "$WORK/t.txt")"
  done
  awk 'length > 140 { exit 1 }' "$WORK/t.txt" || fail "a line over 140 columns"
  awk 'length > 100 { n++ } END { exit !n }' "$WORK/t.txt" || fail "the terminal's width was not used"
else
  echo "no script(1): the terminal's width is not tried"
fi
exit 0
