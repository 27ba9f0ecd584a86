#!/bin/sh
# The CPU figures cover the span of the wall time, from tprof's start: a library's constructor
# that spins 400 ms of CPU before libtprof.so's (relocation of a big program, other constructors)
# is left out of the main thread's CPU time, which read more than the wall time (1.61 s on a
# CPU in a 1.56 s run). Asserted: the main thread was on a CPU no longer than the program's wall
# time (one thread cannot use more) give or take 10 ms (the kernel's figure for a running thread
# is brought up to date at scheduler ticks, a few ms apart, at each end of the span, and the
# figures are read microseconds apart), at least the 50 ms main spun for, and less than the 400 ms
# of the constructor (a wide margin over tprof's own start and report); the process's CPU time
# is the threads'. Each spin is measured by the thread's CPU clock: no machine makes it shorter.
. "$TS/lib.sh"
v="$TB/victims/v_burnctor"
# The case is made only if libtpburn.so is initialised before libtprof.so.
order=$(LD_DEBUG=files TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$v" 2>&1 >/dev/null |
        sed -n 's/.*calling init: \(.*\)/\1/p' | grep -n -e libtpburn.so -e libtprof.so | cut -d: -f2 | tr '\n' ' ')
case "$order" in
*libtpburn.so*libtprof.so*) ;;
*) echo "SKIP: libtprof.so was initialised before libtpburn.so ($order): nothing to show"; exit 77 ;;
esac
out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" preload "$v") || fail "victim failed: $?"
[ "$out" = spun ] || fail "stdout changed: $out"
main='[t for t in d["threads"] if t["tid"] == d["program"]["pid"]][0]'
jcheck "$WORK/r.json" \
  "len(d['threads']) == 1" \
  "$main['cpu_ns'] <= d['program']['wall_ns'] + 10000000" \
  "$main['cpu_ns'] >= 50000000" \
  "$main['cpu_ns'] < 400000000" \
  "d['program']['cpu_ns'] == $main['cpu_ns']"
