#!/bin/sh
# The time outside every op, per thread. The main thread runs the program's work, and its time
# outside ops counts asleep or not; another thread's counts only while it is on a CPU or waiting
# for one. Run 1: the main thread is inside an op ("held") while a helper sleeps 200 ms outside
# every op; the sleep is not time outside (the figure before, each thread's whole life, was at
# least those 200 ms: the kernel's lower bound of the sleep, on any machine). Run 2: a helper
# holds the op while the main thread sleeps 200 ms outside every op: at least those 200 ms are
# outside. In both the figure is the rule's sum of the report's own per-thread figures (the
# main thread's wall time less its time inside ops, the helper's time on a CPU or waiting for one
# no more than its wall time outside ops; the op's time within 1%: two tick-to-ns ratios). The
# text and HTML reports say what each thread counts.
. "$TS/lib.sh"
main='[t for t in d["threads"] if t["tid"] == d["program"]["pid"]][0]'
other='[t for t in d["threads"] if t["tid"] != d["program"]["pid"]][0]'
run="min($other['cpu_ns'] + $other['runq_ns'], $other['wall_ns'])"
main_out="($main['wall_ns'] - d['program']['main_in_ops_ns'])"
other_out="min($other['wall_ns'] - (d['program']['in_ops_ns'] - d['program']['main_in_ops_ns']), $run)"
rule() {
  jcheck "$1" \
    "len(d['threads']) == 2" \
    "d['program']['cpu_source'] == 'schedstat'" \
    "d['verdict']['threads_wall_ns'] == sum(t['wall_ns'] for t in d['threads'])" \
    "d['verdict']['outside_ops_ns'] == $main_out + $other_out" \
    "d['verdict']['threads_time_ns'] == $main['wall_ns'] + $run" \
    "abs(d['program']['in_ops_ns'] - ops['held']['wall_ns']) <= ops['held']['wall_ns'] / 100"
}
basis='the main thread'"'"'s wall time, the others'"'"' time on a CPU or waiting for one'

out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" TPROF_HTML="$WORK/r.html" preload "$TB/victims/v_outside") ||
  fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
rule "$WORK/r.json"
jcheck "$WORK/r.json" \
  "d['program']['main_in_ops_ns'] == d['program']['in_ops_ns']" \
  "d['verdict']['outside_ops_ns'] < 200000000"
# the text report wraps its lines: read it as one
flat() { tr '\n' ' ' <"$1" | tr -s ' '; }
flat "$WORK/r.txt" | grep -q " time outside every op, summed over 2 threads ($basis): [0-9.]* [mun]*s ([0-9.]*% of theirs); inside the allocator: ~" ||
  fail "text line: $(grep 'outside every op' "$WORK/r.txt")"
grep -q "<p id=\"times\">time outside every op, summed over 2 threads ($basis): [0-9.]* [mun]*s ([0-9.]*% of theirs); inside the allocator: <span title=\"calls of 64 KiB or more timed; of the others 1 in 16 timed, counted 16 times, or once when it took 2^17 ticks or more\">~" "$WORK/r.html" ||
  fail "HTML line: $(grep -o '<p id="times">.*</p>' "$WORK/r.html")"

out=$(TPROF_OUTPUT="$WORK/m.txt" TPROF_JSON="$WORK/m.json" preload "$TB/victims/v_outside" main-sleeps) ||
  fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
rule "$WORK/m.json"
jcheck "$WORK/m.json" \
  "d['program']['main_in_ops_ns'] == 0" \
  "d['verdict']['outside_ops_ns'] >= 200000000"
flat "$WORK/m.txt" | grep -q " time outside every op, summed over 2 threads ($basis): [0-9.]* [mun]*s ([0-9.]*% of theirs); inside the allocator: ~" ||
  fail "text line: $(grep 'outside every op' "$WORK/m.txt")"
