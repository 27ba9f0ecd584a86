#!/bin/sh
# `program | head -1`: the program dies of SIGPIPE at its next write once head is gone. Its report
# is written (exact figures: tests/victims/v_sigpipe.c allocates only before it writes), and it
# still dies of SIGPIPE (exit status 141) as it does without tprof; head prints what it printed.
# The same when the text report goes to stderr and stderr is the broken pipe (tprof's own write
# gets EPIPE, no second SIGPIPE); a program that ignores SIGPIPE goes on as without tprof; and a
# warning of tprof's to a stderr whose reader is gone does not end a program that writes nothing
# there itself.
. "$TS/lib.sh"
V=$TB/victims/v_sigpipe
# pipe NAME ARG [VAR=val...]: `v_sigpipe ARG | head -1` under sh, with SIGPIPE at its default
# action whatever the test runs under; head's output in NAME.out, the victim's status in NAME.rc.
pipe() {
  name=$1 arg=$2
  shift 2
  { env --default-signal=PIPE "$@" "$V" $arg; echo $? > "$WORK/$name.rc"; } | head -1 > "$WORK/$name.out"
}
pipe native ""
[ "$(cat "$WORK/native.rc")" = 141 ] || fail "native run: exit status $(cat "$WORK/native.rc"), expected 141"
[ "$(cat "$WORK/native.out")" = "line 0" ] || fail "native run printed $(cat "$WORK/native.out")"

pipe json "" TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO"
[ "$(cat "$WORK/json.rc")" = 141 ] || fail "under tprof: exit status $(cat "$WORK/json.rc"), expected 141 (SIGPIPE)"
cmp -s "$WORK/native.out" "$WORK/json.out" || fail "head's output changed: $(cat "$WORK/json.out")"
jcheck "$WORK/r.json" "site('pipe_alloc')['allocs'] == 7" "site('pipe_alloc')['live_at_exit_bytes'] == 700" \
  "'report written on signal PIPE' in d['notes']"

# The text report on stderr, which is the broken pipe too.
{ env --default-signal=PIPE TPROF_OUTPUT=stderr TPROF_JSON="$WORK/e.json" LD_PRELOAD="$TPROF_SO" "$V" 2>&1
  echo $? > "$WORK/err.rc"; } | head -1 > "$WORK/err.out"
[ "$(cat "$WORK/err.rc")" = 141 ] || fail "report to a broken stderr: exit status $(cat "$WORK/err.rc"), expected 141"
cmp -s "$WORK/native.out" "$WORK/err.out" || fail "head's output changed (stderr): $(cat "$WORK/err.out")"
jcheck "$WORK/e.json" "site('pipe_alloc')['allocs'] == 7" "'report written on signal PIPE' in d['notes']"

# SIGPIPE ignored by the program: the write fails with EPIPE and it returns 3, with tprof too.
pipe ign_native ignore
pipe ign ignore TPROF_OUTPUT=none TPROF_JSON="$WORK/i.json" LD_PRELOAD="$TPROF_SO"
[ "$(cat "$WORK/ign_native.rc")" = 3 ] || fail "native, SIGPIPE ignored: status $(cat "$WORK/ign_native.rc")"
[ "$(cat "$WORK/ign.rc")" = 3 ] || fail "under tprof, SIGPIPE ignored: status $(cat "$WORK/ign.rc"), expected 3"
cmp -s "$WORK/native.out" "$WORK/ign.out" || fail "head's output changed (ignored): $(cat "$WORK/ign.out")"
jcheck "$WORK/i.json" "site('pipe_alloc')['allocs'] == 7" "not any('report written on' in n for n in d['notes'])"

# tprof's own lines on a broken stderr: v_wait (stdin at its end) writes to stdout only, and
# TPROF_OUTPUT=stderr has the report at exit written there.
# stderr is a pipe whose read end is closed before the program starts.
python3 - "$TB/victims/v_wait" "$TPROF_SO" "$WORK/w.json" << 'PY' || fail "a warning to a broken stderr"
import os, signal, subprocess, sys
v, so, json_path = sys.argv[1:4]
for preload in (False, True):
    r, w = os.pipe()
    os.close(r)
    env = dict(os.environ, TPROF_OUTPUT="stderr", TPROF_JSON=json_path)
    if preload:
        env["LD_PRELOAD"] = so
    p = subprocess.run([v], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=w, env=env,
                       restore_signals=True, preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_DFL))
    os.close(w)
    if p.returncode != 0 or p.stdout != b"ready\n":
        print(f"FAIL: {'under tprof' if preload else 'native'}: status {p.returncode}, stdout {p.stdout!r}")
        sys.exit(1)
PY
jcheck "$WORK/w.json" "site('wait_alloc')['allocs'] == 2" "not any('report written on' in n for n in d['notes'])"
exit 0
