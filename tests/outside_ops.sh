#!/bin/sh
# Where the time outside every op goes: v_hot spends 300 ms of CPU time in crunch, which no op
# names (TPROF_OPS names setup_table only). The CPU-time samples put crunch first: it does all
# the program's work but a few microseconds, so any sample outside it is one of the handful a
# 300 ms run could land elsewhere, and a CPU-time timer takes at least one sample in 300 ms of
# CPU time whatever the machine's speed or load. TPROF_SAMPLE_HZ=0 turns sampling off; a program
# that profiles itself with SIGPROF keeps its own ticks and tprof stops sampling.
. "$TS/lib.sh"
V="$TB/victims/v_hot"
out=$(TPROF_OPS=setup_table TPROF_OUTPUT=none TPROF_JSON="$WORK/h.json" preload "$V") ||
  fail "victim failed"
[ "$out" = done ] || fail "stdout changed: $out"
jcheck "$WORK/h.json" "list(ops) == ['setup_table']" \
  "d['samples']['hz'] == 100 and d['samples']['outside_ops'] > 0" \
  "d['samples']['total'] >= d['samples']['in_ops'] + d['samples']['outside_ops']" \
  "d['outside_ops'][0]['name'] == 'crunch' and d['outside_ops'][0]['module'] == 'v_hot'" \
  "d['outside_ops'][0]['samples'] > 0" \
  "d['outside_ops'][0]['samples'] == max(f['samples'] for f in d['outside_ops'])" \
  "sum(f['samples'] for f in d['outside_ops']) <= d['samples']['outside_ops']" \
  "', mostly in crunch (~' in d['verdict']['text']" \
  "d['samples']['method'] == 'the program counter every 1/hz s of CPU time (SIGPROF); a function\\'s share of the samples estimates its share of the CPU time outside every op'"
# the text report says the same, and `tprof report` reads it back into the same verdict
TPROF_OPS=setup_table TPROF_OUTPUT="$WORK/h.txt" preload "$V" > /dev/null || fail "victim failed"
tr -s ' \n' '  ' < "$WORK/h.txt" |
  grep -q "outside every op, by CPU samples ([0-9]* of the run's [0-9]* at 100 Hz), as shares of the run's samples: crunch ~[0-9.]*%" ||
  fail "text line: $(grep 'by CPU samples' "$WORK/h.txt")"
"$TPROF_CLI" report --format json "$WORK/h.json" > "$WORK/back.json" || fail "tprof report failed"
jcheck "$WORK/back.json" "d['outside_ops'][0]['name'] == 'crunch'" \
  "', mostly in crunch (' in d['verdict']['text']"

# TPROF_SAMPLE_HZ=0: no samples, and the verdict says what it said before
TPROF_SAMPLE_HZ=0 TPROF_OPS=setup_table TPROF_OUTPUT=none TPROF_JSON="$WORK/off.json" preload "$V" \
  > /dev/null || fail "victim failed (off)"
jcheck "$WORK/off.json" "d['samples'] == {'hz': 0, 'total': 0, 'in_ops': 0, 'outside_ops': 0, 'outside_spin': 0, 'other_threads': 0, 'other_threads_outside': 0, 'in_tprof': 0, 'method': None}" \
  "d['outside_ops'] == []" "'is spent outside every op; CPU samples (TPROF_SAMPLE_HZ, off in this run) would say where it goes and what to do about it.' in d['verdict']['text']"

# No op at all: the verdict still names where the time went.
TPROF_OPS=nothing_named_so TPROF_OUTPUT=none TPROF_JSON="$WORK/none.json" preload "$V" > /dev/null ||
  fail "victim failed (no op)"
jcheck "$WORK/none.json" "d['ops'] == []" "d['outside_ops'][0]['name'] == 'crunch'" \
  "'The time goes mostly to crunch (' in d['verdict']['text']"

# The program's own SIGPROF profiler gets its ticks; tprof stops sampling and says so.
native=$("$V" own) || fail "native run failed (own)"
out=$(TPROF_OPS=setup_table TPROF_OUTPUT=none TPROF_JSON="$WORK/own.json" preload "$V" own) ||
  fail "victim failed (own)"
[ "$out" = "$native" ] || fail "stdout changed (own): $out"
[ "$out" = "own ticks ok
done" ] || fail "the program's SIGPROF handler: $out"
jcheck "$WORK/own.json" "d['samples']['outside_ops'] == 0" \
  "any(n.startswith('the program used SIGPROF itself') for n in d['notes'])"

# CPU time of a worker thread while the main thread is inside an op (an OpenBLAS pool's, say) is
# the op's time: crunch, on the worker, is never named as time outside every op.
out=$(TPROF_OPS=wait_op TPROF_OUTPUT=none TPROF_JSON="$WORK/worker.json" preload "$V" worker) ||
  fail "victim failed (worker)"
[ "$out" = "done" ] || fail "stdout changed (worker): $out"
jcheck "$WORK/worker.json" "ops['wait_op']['calls'] == 1" "d['samples']['in_ops'] > 0" \
  "not any(f['name'] == 'crunch' for f in d['outside_ops'])"

# A runtime that only asks what SIGPROF's action is (Python lists every signal's handler at start)
# is told its own, and the sampling goes on: no note, the same output as without tprof.
q='import signal; print(signal.getsignal(signal.SIGPROF))'
native=$(python3 -c "$q") || fail "python3 failed"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/py.json" preload python3 -c "$q") || fail "python3 failed under tprof"
[ "$out" = "$native" ] || fail "python3's view of SIGPROF changed: $out vs $native"
jcheck "$WORK/py.json" "d['samples']['hz'] == 100" \
  "not any('SIGPROF' in n for n in d['notes'])"

# A tick still pending when the sampling stops must not reach the program's default action,
# which ends the process ("Profiling timer expired"): valgrind delivers signals late, so under it
# a tick is pending at the exit every time.
if command -v valgrind > /dev/null 2>&1; then
  out=$(TPROF_OUTPUT=none preload valgrind -q --tool=none "$V" 2>"$WORK/vg.err") ||
    fail "under valgrind the victim ended with status $?: $(tail -n 3 "$WORK/vg.err")"
  [ "$out" = "done" ] || fail "stdout changed under valgrind: $out"
fi

# Under TPROF_SIGNAL=PROF that signal asks for reports: no sampling.
TPROF_SIGNAL=PROF TPROF_OPS=setup_table TPROF_OUTPUT=none TPROF_JSON="$WORK/sig.json" preload "$V" \
  > /dev/null || fail "victim failed (TPROF_SIGNAL=PROF)"
jcheck "$WORK/sig.json" "d['samples']['hz'] == 0 and d['samples']['total'] == 0"
echo "PASS outside_ops"
