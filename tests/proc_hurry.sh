#!/bin/sh
# A signal that comes while the report at exit is written (as a process pool's terminate sends
# SIGTERM to workers that write theirs in _exit) does not cost the report: it is finished, the
# JSON first and the trace last, cut at a deadline 100 ms after the signal (a valid trace whose
# calls past it are summarised per op), and then the process ends by that signal, with the status
# it gives. The signal is placed by the test library libtpdelay.so, which holds the report at its
# start and lets it go just past that deadline, so that the trace is always cut at the same place: after its first 4,096
# calls (it looks at the clock every 4,096). Ordering only: every wait below is for an event, with
# a bound far above what it needs.
. "$TS/lib.sh"
MARK="tpdelay: the report waits 30000 ms"
CAME="tpdelay: a signal came: the report waits until its deadline"
DELAY="$TB/victims/libtpdelay.so"
NOTE="SIGTERM came while this report was written: the process ended by it once the report was finished"
# until <seconds> <shell test>: poll every 0.1 s; 1 if the test never held
until_() {
  n=$(($1 * 10)); shift
  while [ $n -gt 0 ]; do eval "$@" && return 0; sleep 0.1; n=$((n - 1)); done
  return 1
}
# The victims below run in the background as the shell's own children (not through lib.sh's tp,
# a function, which the shell runs in a subshell: the signal would reach that shell).
# gone <pid> <status> <what>: the process ends within 10 s with that exit status
gone() {
  until_ 10 "! kill -0 $1 2>/dev/null" || { kill -KILL $1; fail "$3: still running 10 s after the signal"; }
  wait $1; rc=$?
  [ $rc -eq $2 ] || fail "$3: exit status $rc, expected $2"
}

# 1. A big trace: v_trace 20 50 makes 11,520 op calls; SIGTERM while the report at exit waits.
V=$TB/victims/v_trace
OPS='*matmul*,*forward*,*conv*'
native=$("$V" 20 50) || fail "native run failed"
TPROF_DEMOTE=0 TPDELAY_MS=30000 TPROF_OPS="$OPS" TPROF_JSON="$WORK/r.json" \
  TPROF_TRACE="$WORK/t.json" TPROF_OUTPUT="$WORK/r.txt" LD_PRELOAD="$DELAY $TPROF_SO" "$V" 20 50 \
  > "$WORK/out1" 2> "$WORK/err1" &
pid=$!
until_ 60 'grep -q "^$MARK\$" "$WORK/err1" 2>/dev/null' || fail "the report at exit did not begin: $(cat "$WORK/err1")"
kill -TERM $pid
gone $pid 143 "SIGTERM during the report with a trace"
grep -q "^$CAME\$" "$WORK/err1" || fail "the signal did not end the wait at its deadline: $(cat "$WORK/err1")"
[ "$(cat "$WORK/out1")" = "$native" ] || fail "stdout changed: $(cat "$WORK/out1")"
jcheck "$WORK/r.json" "ops['small_matmul']['calls'] == 10510" "ops['layer_forward']['calls'] == 1000" \
  "ops['conv_layer']['calls'] == 10" "d['outputs']['trace_calls'] == 11520" \
  "d['outputs']['trace_events'] == 4096" "d['outputs']['trace_past_deadline'] == 11520 - 4096" \
  "d['outputs']['trace_past_cap'] == 0 and d['outputs']['trace_past_max'] == 0" \
  "'$NOTE' in d['notes']"
python3 "$TS/tracecheck.py" "$WORK/r.json" trace "$WORK/t.json" --cut --names trainer || fail "cut trace"
grep -q "^trace: 7.42k calls past the report's deadline (a signal hurried it) are summarised per op" \
  "$WORK/r.txt" || fail "text report: the cut is not said: $(grep '^trace' "$WORK/r.txt")"
grep -q "^note: SIGTERM came while this report was written: the process ended by it once the" \
  "$WORK/r.txt" || fail "text report: no note on the signal"
ls "$WORK" | grep -q tmp && fail "a temporary file was left: $(ls "$WORK")"

# 2. The thread that writes the report blocks SIGTERM, so another thread takes it: the report is
# finished all the same and the process still ends by SIGTERM.
mkfifo "$WORK/fifo"
TPDELAY_MS=30000 TPROF_OUTPUT=none TPROF_JSON="$WORK/b.json" LD_PRELOAD="$DELAY $TPROF_SO" \
  "$TB/victims/v_hurry" < "$WORK/fifo" > "$WORK/out2" 2> "$WORK/err2" &
pid=$!
exec 3> "$WORK/fifo"
until_ 60 'grep -q ready "$WORK/out2"' || fail "v_hurry did not start"
exec 3>&- # it returns from main; its report at exit begins
until_ 60 'grep -q "^$MARK\$" "$WORK/err2" 2>/dev/null' || fail "the report at exit did not begin: $(cat "$WORK/err2")"
kill -TERM $pid
gone $pid 143 "SIGTERM to another thread during the report"
jcheck "$WORK/b.json" "site('hurry_alloc')['allocs'] == 3" "site('hurry_alloc')['live_at_exit_bytes'] == 900" \
  "'$NOTE' in d['notes']"

# 3. SIGPIPE sent during the report at exit hurries it too: the process then dies of SIGPIPE (141).
env --default-signal=PIPE TPDELAY_MS=30000 TPROF_OUTPUT=none \
  TPROF_JSON="$WORK/p.json" LD_PRELOAD="$DELAY $TPROF_SO" "$TB/victims/v_wait" < "$WORK/fifo" > "$WORK/out3" 2> "$WORK/err3" &
pid=$!
exec 3> "$WORK/fifo"
until_ 60 'grep -q ready "$WORK/out3"' || fail "v_wait did not start"
exec 3>&-
until_ 60 'grep -q "^$MARK\$" "$WORK/err3" 2>/dev/null' || fail "the report at exit did not begin: $(cat "$WORK/err3")"
kill -PIPE $pid
gone $pid 141 "SIGPIPE during the report"
jcheck "$WORK/p.json" "site('wait_alloc')['allocs'] == 2" \
  "'SIGPIPE came while this report was written: the process ended by it once the report was finished' in d['notes']"
exit 0
