#!/bin/sh
# Debian's /usr/bin/darknet as shipped (stripped, the library linked in statically) under tprof:
# `darknet speed` on tests/darknet/small.cfg keeps its exit status, stdout and stderr; the heap
# adds up; the sites in darknet's own code are named by module+offset (no symbols) and hold
# exactly what darknet callocs for this network (tests/darknet/expect.py), the 108 KiB im2col
# workspace as one block, all of it still allocated at exit; no op is seen (nothing to hook), and
# the verdict says so. An aborting darknet (an empty cfg) still aborts, and the report is written.
# With the default settings: darknet links GLib through OpenCV, whose constructors tprof's start-up
# PLT scan once ran out of order (the program aborted).
. "$TS/lib.sh"
. "$TS/darknet/common.sh"
X=/usr/bin/darknet
darknet_native $X
darknet_profiled $X TPROF_TOP=1000
heap_adds_up
own="[s for s in m['sites'] if s['frames'][0]['module'] == '$X']"
jcheck "$WORK/r.json" \
  "d['ops'] == [] and d['verdict']['op'] is None" \
  "all(f['function'] is None and f['offset'] > 0 for s in $own for f in s['frames'] if f['module'] == '$X')" \
  "sum(s['live_at_exit_bytes'] for s in $own) == $HEAP_OWN" \
  "max($own, key=lambda s: s['bytes'])['bytes'] == $WORKSPACE" \
  "max($own, key=lambda s: s['bytes'])['allocs'] == 1" \
  "max($own, key=lambda s: s['bytes'])['live_at_exit_bytes'] == $WORKSPACE"
# The workspace's site, as the text report shows it in both tables: darknet+0x<offset> frames.
ws=$(python3 -c "
import json; m = json.load(open('$WORK/r.json'))['memory']
s = max((s for s in m['sites'] if s['frames'][0]['module'] == '$X'), key=lambda s: s['bytes'])
print(' < '.join('darknet+0x%x' % f['offset'] for f in s['frames'][:2]))") || fail "no workspace site"
[ "$(grep -c "^ *108 KiB .*  $ws <" "$WORK/report.txt")" -eq 2 ] ||
  fail "the workspace ($ws) is not in CALL SITES and LEAKS: $(grep -n "$ws" "$WORK/report.txt")"
grep -q '^No op was seen' "$WORK/report.txt" || fail "verdict: $(grep -A 3 '^VERDICT' "$WORK/report.txt")"

# darknet's error() asserts: SIGABRT, with and without tprof; the report is written on the signal.
# (The subshell waits for darknet, not exec: the shell's "Aborted" goes to /dev/null too.)
: > "$WORK/empty.cfg"
(ulimit -c 0; $X speed "$WORK/empty.cfg"; exit $?) > /dev/null 2>&1
[ $? -eq 134 ] || fail "darknet on an empty cfg did not abort"
(ulimit -c 0; env TPROF_OUTPUT=none TPROF_JSON="$WORK/abort.json" LD_PRELOAD="$TPROF_SO" \
  $X speed "$WORK/empty.cfg"; exit $?) > /dev/null 2>&1
rc=$?
[ $rc -eq 134 ] || fail "darknet on an empty cfg under tprof: exit status $rc, expected 134"
jcheck "$WORK/abort.json" "'report written on signal ABRT' in d['notes']" "m['peak_bytes'] > 0"
exit 0
