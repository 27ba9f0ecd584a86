#!/bin/sh
# A terminating signal that arrives while the report is written ends the process at once, by
# that signal, with the files as far as they were written: the last complete snapshot stays, no
# temporary file is left. That is a second signal during the report at exit (the first lets it
# finish: tests/proc_hurry.sh), or one during the report a signal started. The report is held up
# 30 s by the test library libtpdelay.so (it says so on stderr first), also for 30 s after the
# first signal (TPDELAY_AFTER_MS); the process must be gone within 10 s of the signal. Ordering only: every wait below is for an event, with a bound far above
# what it needs.
. "$TS/lib.sh"
V=$TB/victims/v_wait
MARK="tpdelay: the report waits 30000 ms"
CAME="tpdelay: a signal came: the report waits until its deadline"
DELAY="$TB/victims/libtpdelay.so"
# until <seconds> <shell test>: poll every 0.1 s; 1 if the test never held
until_() {
  n=$(($1 * 10)); shift
  while [ $n -gt 0 ]; do eval "$@" && return 0; sleep 0.1; n=$((n - 1)); done
  return 1
}
# gone_by_term <pid> <what>: the process ends within 10 s, killed by SIGTERM (status 143)
gone_by_term() {
  victim=$1
  until_ 10 '! kill -0 $victim 2>/dev/null' ||
    { kill -KILL $victim; fail "$2: still running 10 s after SIGTERM"; }
  wait $victim; rc=$?
  [ $rc -eq 143 ] || fail "$2: exit status $rc, expected 143 (SIGTERM)"
}
mkfifo "$WORK/fifo"

# 1. Two SIGTERMs during the report at exit, after snapshots.
TPDELAY_MS=30000 TPDELAY_AFTER_MS=30000 TPROF_SNAPSHOT=0.05 \
  TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$DELAY $TPROF_SO" "$V" < "$WORK/fifo" > /dev/null \
  2> "$WORK/err1" &
pid=$!
exec 3> "$WORK/fifo"
until_ 60 '[ -f "$WORK/r.json" ]' || fail "no snapshot written"
exec 3>&- # the program returns from main; its report at exit begins
until_ 60 'grep -q "^$MARK\$" "$WORK/err1"' || fail "the report at exit did not begin: $(cat "$WORK/err1")"
kill -TERM $pid
until_ 60 'grep -q "^$CAME\$" "$WORK/err1"' || fail "the first SIGTERM was not taken: $(cat "$WORK/err1")"
kill -TERM $pid
gone_by_term $pid "a second SIGTERM during the report at exit"
jcheck "$WORK/r.json" "'report written on snapshot' in d['notes']" "site('wait_alloc')['allocs'] == 2"
ls "$WORK" | grep -q tmp && fail "a temporary file was left: $(ls "$WORK")"

# 2. SIGTERM makes the program write its report; a second SIGTERM during it ends the process.
rm -f "$WORK/r.json"
TPDELAY_MS=30000 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" \
  LD_PRELOAD="$DELAY $TPROF_SO" "$V" < "$WORK/fifo" > "$WORK/out2" 2> "$WORK/err2" &
pid=$!
exec 3> "$WORK/fifo"
until_ 60 'grep -q ready "$WORK/out2"' || fail "the program did not start"
kill -TERM $pid
until_ 60 'grep -q "^$MARK\$" "$WORK/err2"' || fail "the report on SIGTERM did not begin: $(cat "$WORK/err2")"
kill -TERM $pid
gone_by_term $pid "a second SIGTERM during the report"
exec 3>&-
[ -f "$WORK/r.json" ] && fail "a report was written although the delay had not ended"
ls "$WORK" | grep -q tmp && fail "a temporary file was left: $(ls "$WORK")"
exit 0
