#!/bin/sh
# Settings that select nothing are told, once, with the closest names the hooks saw: a TPROF_OPS
# of no pattern at load (one warning, the default list used), a misspelt TPROF_STEP or exact
# TPROF_OPS entry at the end of the run (a note in the text and JSON reports, and one line on
# stderr when the text report is not written there). v_cyg's instrumented functions:
# tiny_helper, small_matmul, conv_layer, fib_norm, deep_softmax, train_step, main.
. "$TS/lib.sh"
V="$TB/victims/v_cyg"
for ops in '[' ',,,' ' , ' '!foo'; do
  TPROF_OPS="$ops" TPROF_OUTPUT=none TPROF_JSON="$WORK/o.json" preload "$V" > /dev/null \
    2> "$WORK/err" || fail "victim failed (TPROF_OPS=$ops)"
  case $ops in
  '[') why='a [ in a pattern is not closed by ]' ;;
  *) why='no pattern selects a function (only commas, blanks or !exclusions)' ;;
  esac
  [ "$(cat "$WORK/err")" = "tprof: TPROF_OPS=$ops: $why; using the default op list" ] ||
    fail "TPROF_OPS=$ops: $(cat "$WORK/err")"
  # the default list: *matmul*, *conv*, *norm*, *softmax* are ops
  jcheck "$WORK/o.json" "sorted(ops) == ['conv_layer', 'deep_softmax', 'fib_norm', 'small_matmul']"
done
# the same values refused by `tprof run` before the program starts
for ops in '[' ',,,'; do
  "$TPROF_CLI" run --ops "$ops" -- "$V" > "$WORK/out" 2> "$WORK/err"
  [ $? -eq 2 ] || fail "tprof run --ops '$ops' did not exit with 2"
  [ ! -s "$WORK/out" ] || fail "tprof run --ops '$ops' ran the program"
done

# A misspelt step: the note names train_step; stderr has the line once.
out=$(TPROF_STEP=train_stpe TPROF_OUTPUT=none TPROF_JSON="$WORK/s.json" preload "$V" 2> "$WORK/err") ||
  fail "victim failed (step)"
[ "$out" = "fib 610" ] || fail "stdout changed: $out"
line='TPROF_STEP=train_stpe: no function of that name was called; closest: train_step'
[ "$(cat "$WORK/err")" = "tprof: $line" ] || fail "stderr: $(cat "$WORK/err")"
jcheck "$WORK/s.json" "d['steps']['count'] == 0" "d['notes'].count('$line') == 1"
# in the text report (on stderr by default) it is a note, not a second line
TPROF_STEP=train_stpe preload "$V" > /dev/null 2> "$WORK/err" || fail "victim failed (text)"
[ "$(grep -c 'TPROF_STEP=train_stpe' "$WORK/err")" = 1 ] || fail "text: $(grep TPROF_STEP "$WORK/err")"
grep -q "^note: $line\$" "$WORK/err" || fail "text note: $(grep TPROF_STEP "$WORK/err")"
# the step spelt right: no note
TPROF_STEP=train_step TPROF_OUTPUT=none TPROF_JSON="$WORK/ok.json" preload "$V" > /dev/null \
  2> "$WORK/err" || fail "victim failed (step ok)"
[ ! -s "$WORK/err" ] || fail "stderr with the right step: $(cat "$WORK/err")"
jcheck "$WORK/ok.json" "d['steps']['count'] == 10" "not any('TPROF_STEP' in n for n in d['notes'])"

# Exact TPROF_OPS entries never called: one note each; the glob that matched is not one.
TPROF_OPS='*matmul*,conv_layr, fib_nrm' TPROF_OUTPUT=none TPROF_JSON="$WORK/e.json" preload "$V" \
  > /dev/null 2> "$WORK/err" || fail "victim failed (ops)"
pre='TPROF_OPS=*matmul*,conv_layr, fib_nrm'
[ "$(cat "$WORK/err")" = "tprof: $pre: conv_layr: no function of that name was called; closest: conv_layer
tprof: $pre: fib_nrm: no function of that name was called; closest: fib_norm" ] ||
  fail "stderr: $(cat "$WORK/err")"
jcheck "$WORK/e.json" "list(ops) == ['small_matmul']" \
  "sum(n.startswith('$pre: ') for n in d['notes']) == 2"

# A program with nothing instrumented: the note does not claim the function never ran.
TPROF_STEP=train_step TPROF_OUTPUT=none preload "$TB/victims/v_loop" > /dev/null 2> "$WORK/err" ||
  fail "victim failed (v_loop)"
[ "$(cat "$WORK/err")" = "tprof: TPROF_STEP=train_step: no call of it was seen (tprof sees the calls of functions built with -finstrument-functions and those into shared libraries)" ] ||
  fail "stderr (v_loop): $(cat "$WORK/err")"
echo "PASS unmatched"
