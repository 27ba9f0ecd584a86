#!/bin/sh
# The time outside every op, per thread. The main thread runs the program's work, and its time
# outside ops counts asleep or not; another thread's counts only while it is on a CPU or waiting
# for one, and not while it works for an op another thread runs (by CPU samples). Run 1: the main thread is inside an op ("held") while a helper sleeps 200 ms outside
# every op; the sleep is not time outside (the figure before, each thread's whole life, was at
# least those 200 ms: the kernel's lower bound of the sleep, on any machine). Run 2: a helper
# holds the op while the main thread sleeps 200 ms outside every op: at least those 200 ms are
# outside. In both the figure is the rule's sum of the report's own per-thread figures (the
# main thread's wall time less its time inside ops, the helper's time on a CPU or waiting for one
# no more than its wall time outside ops, in the share of its CPU samples outside every op when
# it got any; the op's time within 1%, or 1 us for an op of a few: two tick-to-ns ratios). The text and HTML reports say
# what each thread counts.
. "$TS/lib.sh"
main='[t for t in d["threads"] if t["tid"] == d["program"]["pid"]][0]'
other='[t for t in d["threads"] if t["tid"] != d["program"]["pid"]][0]'
run="min($other['cpu_ns'] + $other['runq_ns'], $other['wall_ns'])"
# with CPU samples on the helper, the share of them outside every op
share="(d['samples']['other_threads_outside'] / d['samples']['other_threads'] if d['samples']['other_threads'] else 1)"
main_out="($main['wall_ns'] - d['program']['main_in_ops_ns'])"
other_out="min($other['wall_ns'] - (d['program']['in_ops_ns'] - d['program']['main_in_ops_ns']), int($run * $share))"
rule() {
  jcheck "$1" \
    "len(d['threads']) == 2" \
    "d['program']['cpu_source'] == 'schedstat'" \
    "d['verdict']['threads_wall_ns'] == sum(t['wall_ns'] for t in d['threads'])" \
    "abs(d['verdict']['outside_ops_ns'] - ($main_out + $other_out)) <= 1" \
    "d['verdict']['threads_time_ns'] == $main['wall_ns'] + $run" \
    "abs(d['program']['in_ops_ns'] - ops['held']['wall_ns']) <= max(ops['held']['wall_ns'] / 100, 1000)"
}
# a sleeping helper rarely gets a CPU sample; when it does, the line says the samples were used
basis='the main thread'"'"'s wall time, the others'"'"' time on a CPU or waiting for one'
line="time outside every op, summed over 2 threads \\($basis(| but not working for another thread's op, by CPU samples)\\): ~?[0-9.]+ [mun]*s \\([0-9.]+% of theirs\\); inside the allocator: "

out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" TPROF_HTML="$WORK/r.html" preload "$TB/victims/v_outside") ||
  fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
rule "$WORK/r.json"
jcheck "$WORK/r.json" \
  "d['program']['main_in_ops_ns'] == d['program']['in_ops_ns']" \
  "d['verdict']['outside_ops_ns'] < 200000000"
# the text report wraps its lines: read it as one
flat() { tr '\n' ' ' <"$1" | tr -s ' '; }
flat "$WORK/r.txt" | grep -Eq " $line~" ||
  fail "text line: $(grep 'outside every op' "$WORK/r.txt")"
grep -Eq "<p id=\"times\">$line<span title=\"calls of 64 KiB or more timed; of the others 1 in 16 timed, counted 16 times, or once when it took 2\\^17 ticks or more\">~" "$WORK/r.html" ||
  fail "HTML line: $(grep -o '<p id="times">.*</p>' "$WORK/r.html")"

out=$(TPROF_OUTPUT="$WORK/m.txt" TPROF_JSON="$WORK/m.json" preload "$TB/victims/v_outside" main-sleeps) ||
  fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
rule "$WORK/m.json"
jcheck "$WORK/m.json" \
  "d['program']['main_in_ops_ns'] == 0" \
  "d['verdict']['outside_ops_ns'] >= 200000000"
flat "$WORK/m.txt" | grep -Eq " $line~" ||
  fail "text line: $(grep 'outside every op' "$WORK/m.txt")"

# Run 3: a helper spins 300 ms of its CPU time while the main thread holds the op, as a pool's
# worker computes for it: every CPU sample on the helper is the op's, so none of its time is
# outside (on a CPU alone, it was at least its 300 ms). Run 4: the same spin while no op runs:
# all of its samples are outside, and so is all its time on a CPU, at least the 300 ms.
for mode in spin-in-op spin-outside; do
  out=$(TPROF_SAMPLE_HZ=100 TPROF_OUTPUT="$WORK/$mode.txt" TPROF_JSON="$WORK/$mode.json" preload "$TB/victims/v_outside" $mode) ||
    fail "victim failed: $?"
  [ "$out" = "ok" ] || fail "stdout changed: $out"
  rule "$WORK/$mode.json"
  jcheck "$WORK/$mode.json" "$other['cpu_ns'] >= 300000000" "d['samples']['other_threads'] > 0"
  flat "$WORK/$mode.txt" | grep -q " time outside every op, summed over 2 threads ($basis but not working for another thread's op, by CPU samples): ~[0-9.]* [mun]*s ([0-9.]*% of theirs); inside the allocator: ~" ||
    fail "text line: $(grep -A2 'outside every op' "$WORK/$mode.txt")"
done
jcheck "$WORK/spin-in-op.json" "d['samples']['other_threads_outside'] == 0" \
  "d['verdict']['outside_ops_ns'] < 300000000"
jcheck "$WORK/spin-outside.json" "d['samples']['other_threads_outside'] == d['samples']['other_threads']" \
  "d['verdict']['outside_ops_ns'] >= 300000000"
