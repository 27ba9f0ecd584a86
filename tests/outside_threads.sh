#!/bin/sh
# The time outside every op, per thread: the main thread is inside an op ("held") while a second
# thread sleeps 200 ms outside every op. Summed over the threads, the time outside every op is at
# least those 200 ms (the sleep's lower bound is the kernel's: no machine makes it shorter), and
# it is the threads' wall time less their time inside ops (within 1%: two tick-to-ns ratios). The
# program's time less the op's, the figure before, read 1.90 ms here. The text and HTML reports
# say the figure is summed over 2 threads; the HTML gives the allocator's method on hover.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" TPROF_HTML="$WORK/r.html" preload "$TB/victims/v_outside") ||
  fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "len(d['threads']) == 2" \
  "d['verdict']['outside_ops_ns'] >= 200000000" \
  "d['verdict']['threads_wall_ns'] == sum(t['wall_ns'] for t in d['threads'])" \
  "d['verdict']['outside_ops_ns'] == d['verdict']['threads_wall_ns'] - d['program']['in_ops_ns']" \
  "abs(d['program']['in_ops_ns'] - ops['held']['wall_ns']) <= ops['held']['wall_ns'] / 100"
grep -q '^time outside every op, summed over 2 threads: [0-9.]* [mun]*s ([0-9.]*% of theirs); inside the allocator: ~' "$WORK/r.txt" ||
  fail "text line: $(grep 'outside every op' "$WORK/r.txt")"
grep -q '<p id="times">time outside every op, summed over 2 threads: [0-9.]* [mun]*s ([0-9.]*% of theirs); inside the allocator: <span title="calls of 64 KiB or more timed; of the others 1 in 16 timed, counted 16 times, or once when it took 2^17 ticks or more">~' "$WORK/r.html" ||
  fail "HTML line: $(grep -o '<p id="times">.*</p>' "$WORK/r.html")"
