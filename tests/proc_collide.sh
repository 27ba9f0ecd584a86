#!/bin/sh
# Two programs started apart (two "roots") given the same report name: the one that writes last
# must not replace the report the other wrote while it ran. It writes beside it, under its pid,
# and says so. A report left by an earlier run is replaced as always, without a word.
# Ordering only: A (a shell's read builtin) reads a fifo and ends when the test closes it; B runs
# and ends a second after A has opened it. (Not cat for A: coreutils close stderr at exit.)
. "$TS/lib.sh"
mkfifo "$WORK/fifo"
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" sh -c 'read x < "$0" || :' \
  "$WORK/fifo" 2> "$WORK/a.err" &
a=$!
exec 3> "$WORK/fifo" # returns once A has opened the fifo: A is running
sleep 1
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" cat /dev/null 2> "$WORK/b.err" ||
  fail "B failed"
exec 3>&-
wait $a || fail "A failed"
[ -s "$WORK/b.err" ] && fail "B said: $(cat "$WORK/b.err")"
[ -f "$WORK/r.$a.json" ] || fail "A's report is not beside B's: $(ls "$WORK")"
grep -q "^tprof: TPROF_JSON: $WORK/r.json was written by another process while this one ran; this report goes to $WORK/r.$a.json\$" "$WORK/a.err" ||
  fail "A did not say where its report went: $(cat "$WORK/a.err")"
jcheck "$WORK/r.json" "d['program']['argv'] == ['cat', '/dev/null']"
jcheck "$WORK/r.$a.json" "d['program']['pid'] == $a" "d['program']['argv'][-1].endswith('fifo')"
# A later run replaces r.json: it was written before that run began.
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" cat -- /dev/null 2> "$WORK/c.err" ||
  fail "C failed"
[ -s "$WORK/c.err" ] && fail "C said: $(cat "$WORK/c.err")"
jcheck "$WORK/r.json" "d['program']['argv'] == ['cat', '--', '/dev/null']"
exit 0
