#!/bin/sh
# The quick measurement of the machine's peaks maps arrays of 32 MiB or more and touches them: it
# is made by the reporter (the tprof program, report/record.c), never in the profiled process,
# whose peak RSS it must not raise, and only for the report at the process's exit (a quarter of
# a second). With no peaks cache and a report asked for while the program runs (TPROF_SIGNAL),
# that report goes without peaks and says why, and the report at exit measures them; both give a
# peak RSS within a margin of the program's own, measured natively here (ru_maxrss), far below
# what the measurement's arrays (96 MiB at least) would add.
. "$TS/lib.sh"
V="$TB/victims/v_rsspeak"
native=$("$V") || fail "native run failed"
[ "$native" -gt 0 ] || fail "no native peak RSS: $native"
TPROF_OUTPUT=none TPROF_SIGNAL=USR1 TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
  "$V" "$WORK/r.sig1.json" > "$WORK/out" 2> "$WORK/err" || fail "run failed: $(cat "$WORK/err")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
[ -f "$WORK/r.sig1.json" ] || fail "no report on the signal"
bound=$(( (native + 40 * 1024) * 1024 ))
cat > "$WORK/note" <<'NOTE'
machine peaks not measured for this report: the quick measurement is made only for the report at the process's exit (`tprof calibrate` caches them)
NOTE
jcheck "$WORK/r.sig1.json" "d['machine']['source'] == 'none'" \
  "open('$WORK/note').read().strip() in d['notes']" "d['memory']['peak_rss_bytes'] < $bound"
jcheck "$WORK/r.json" "d['machine']['source'] == 'quick'" \
  "d['memory']['peak_rss_bytes'] < $bound" \
  "not any(n.startswith('machine peaks not measured') for n in d['notes'])"
# The measurement runs after the program's end: what it printed, its own peak, is unchanged too.
[ "$(cat "$WORK/out")" -lt $((native + 40 * 1024)) ] || fail "the program saw $(cat "$WORK/out") KiB"
# A cache: the report on signal has the peaks, and no note.
TPROF_OUTPUT=none TPROF_SIGNAL=USR1 TPROF_JSON="$WORK/c.json" LD_PRELOAD="$TPROF_SO" \
  "$V" "$WORK/c.sig1.json" > /dev/null 2>&1 || fail "cached run failed"
jcheck "$WORK/c.sig1.json" "d['machine']['source'].startswith('quick-cache:')" \
  "not any(n.startswith('machine peaks not measured') for n in d['notes'])"
exit 0
