#!/bin/sh
# Report targets that are not regular files are written in place and stay what they were: a
# character device node, a FIFO (with a reader; without one the report is skipped in one line, no
# hang), /dev/stderr and /dev/fd/N (the program's own descriptor, appended to, never reopened at
# offset 0), symbolic links to any of these. A link to a regular file keeps the link and replaces
# its target atomically. The program's output and exit status never change.
. "$TS/lib.sh"
V="$TB/victims/v_sites"
native=$("$V") || fail "victim failed without tprof"
kind() { stat -c %F "$1"; }
run() { # run VAR=value... : the victim under tprof, stdout compared, stderr in $WORK/err
  out=$(timeout 60 env TPROF_OUTPUT=none "$@" LD_PRELOAD="$TPROF_SO" "$V" 2>"$WORK/err"); rc=$?
  [ $rc -eq 0 ] || fail "$*: exit status $rc ($(cat "$WORK/err"))"
  [ "$out" = "$native" ] || fail "$*: stdout changed: $out"
}
no_stray() { # no_stray NAME...: nothing but these names (and err) in $WORK
  stray=$(ls -A "$WORK" | while read -r f; do
    keep=0; for n in err "$@"; do [ "$f" = "$n" ] && keep=1; done
    [ $keep = 1 ] || echo "$f"
  done)
  [ -z "$stray" ] || fail "files left beside the targets: $stray"
}

# Character devices, made in the test's directory (never the machine's /dev/null).
if mknod "$WORK/null" c 1 3 2>/dev/null && mknod "$WORK/full" c 1 7 2>/dev/null; then
  run TPROF_OUTPUT="$WORK/null" TPROF_JSON="$WORK/null" TPROF_FOLDED="$WORK/null"
  [ ! -s "$WORK/err" ] || fail "writing to a null device: $(cat "$WORK/err")"
  [ "$(kind "$WORK/null")" = "character special file" ] || fail "the null device became: $(kind "$WORK/null")"
  # /dev/full refuses every byte: the error proves the report went to the device itself
  run TPROF_JSON="$WORK/full"
  [ "$(cat "$WORK/err")" = "tprof: TPROF_JSON: cannot write $WORK/full: No space left on device; report not written" ] ||
    fail "writing to a full device: $(cat "$WORK/err")"
  [ "$(kind "$WORK/full")" = "character special file" ] || fail "the full device became: $(kind "$WORK/full")"
  # a link to a device: the link and the device stay
  ln -s full "$WORK/to_full"
  run TPROF_JSON="$WORK/to_full"
  grep -q "cannot write $WORK/to_full: No space left on device" "$WORK/err" || fail "through a link: $(cat "$WORK/err")"
  [ "$(kind "$WORK/to_full")" = "symbolic link" ] && [ "$(kind "$WORK/full")" = "character special file" ] ||
    fail "link to a device: $(kind "$WORK/to_full"), $(kind "$WORK/full")"
  # a forked child and an exec'd image write to the same device, not to null.<pid> beside it
  out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/null" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_fork" 2>"$WORK/err") ||
    fail "v_fork failed with a device target"
  [ ! -s "$WORK/err" ] || fail "v_fork: $(cat "$WORK/err")"
  # tprof merge -o a device
  "$TPROF_CLI" merge "$TS/fixtures/a.json" -o "$WORK/null" 2>"$WORK/err" || fail "merge -o a null device: $(cat "$WORK/err")"
  "$TPROF_CLI" merge "$TS/fixtures/a.json" -o "$WORK/full" 2>"$WORK/err" && fail "merge -o a full device succeeded"
  grep -q "No space left on device" "$WORK/err" || fail "merge -o a full device: $(cat "$WORK/err")"
  [ "$(kind "$WORK/null")" = "character special file" ] && [ "$(kind "$WORK/full")" = "character special file" ] ||
    fail "merge replaced a device"
  no_stray null full to_full
  rm -f "$WORK/null" "$WORK/full" "$WORK/to_full"
else
  echo "note: mknod is not permitted here: the character-device cases were not run"
fi

# A FIFO with a reader. The test holds it open for reading and writing (fd 5) so that a reader
# exists before the program starts, whenever cat gets to open it; closing fd 5 afterwards lets cat
# see the end.
mkfifo "$WORK/fifo"
exec 5<>"$WORK/fifo"
cat "$WORK/fifo" > "$WORK/got" 5>&- &
reader=$!
run TPROF_JSON="$WORK/fifo"
exec 5>&-
wait $reader
[ ! -s "$WORK/err" ] || fail "FIFO: $(cat "$WORK/err")"
[ "$(kind "$WORK/fifo")" = "fifo" ] || fail "the FIFO became: $(kind "$WORK/fifo")"
jcheck "$WORK/got" "m['peak_bytes'] == 14000"
# Through a link, and from two processes (v_fork's parent and child): two whole reports arrive.
ln -s fifo "$WORK/to_fifo"
exec 5<>"$WORK/fifo"
cat "$WORK/fifo" > "$WORK/got" 5>&- &
reader=$!
TPROF_OUTPUT=none TPROF_JSON="$WORK/to_fifo" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_fork" >/dev/null 2>"$WORK/err" ||
  fail "v_fork failed with a FIFO target"
exec 5>&-
wait $reader
[ ! -s "$WORK/err" ] || fail "v_fork, FIFO: $(cat "$WORK/err")"
python3 - "$WORK/got" <<'EOF' || fail "the FIFO did not receive two whole reports"
import json, sys
text = open(sys.argv[1]).read()
dec, pos, peaks = json.JSONDecoder(), 0, []
while pos < len(text):
    d, pos = dec.raw_decode(text, pos)
    peaks.append(d["memory"]["peak_bytes"])
    while pos < len(text) and text[pos].isspace():
        pos += 1
sys.exit(sorted(peaks) != [3000, 6000])
EOF
[ "$(kind "$WORK/to_fifo")" = "symbolic link" ] && [ "$(kind "$WORK/fifo")" = "fifo" ] || fail "link to a FIFO changed"
# No reader: one line, nothing waits for one, the program's exit is unchanged.
run TPROF_JSON="$WORK/fifo"
[ "$(cat "$WORK/err")" = "tprof: TPROF_JSON: cannot write $WORK/fifo: no process reads this FIFO; report not written" ] ||
  fail "FIFO without a reader: $(cat "$WORK/err")"
[ "$(kind "$WORK/fifo")" = "fifo" ] || fail "the FIFO became: $(kind "$WORK/fifo")"
no_stray fifo to_fifo got
rm -f "$WORK/fifo" "$WORK/to_fifo" "$WORK/got"

# /dev/stderr on a log file: the report is appended after what the program wrote there (v_early
# writes "main" first); reopening the name would have written over it from offset 0.
out=$(TPROF_OUTPUT=/dev/stderr LD_PRELOAD="$TPROF_SO" "$TB/victims/v_early" 2>"$WORK/stream") ||
  fail "v_early failed with TPROF_OUTPUT=/dev/stderr"
[ "$out" = "done" ] || fail "v_early's stdout changed: $out"
[ "$(head -1 "$WORK/stream")" = "main" ] || fail "the program's own stderr was overwritten: $(head -3 "$WORK/stream")"
grep -q "^tprof [0-9.]*: $TB/victims/v_early" "$WORK/stream" || fail "no report on stderr: $(cat "$WORK/stream")"
[ "$(kind /dev/stderr)" = "symbolic link" ] || fail "/dev/stderr became: $(kind /dev/stderr)"
# /dev/fd/3 opened by the shell for appending, and a link to it
echo first > "$WORK/log"
ln -s /dev/fd/3 "$WORK/to_fd3"
run TPROF_JSON="$WORK/to_fd3" 3>>"$WORK/log"
[ ! -s "$WORK/err" ] || fail "/dev/fd/3: $(cat "$WORK/err")"
[ "$(head -1 "$WORK/log")" = "first" ] || fail "the log's first line was overwritten"
tail -n +2 "$WORK/log" > "$WORK/log.json"
jcheck "$WORK/log.json" "m['peak_bytes'] == 14000"
[ "$(kind "$WORK/to_fd3")" = "symbolic link" ] || fail "the link to /dev/fd/3 became: $(kind "$WORK/to_fd3")"
# a descriptor whose reader went away: one line, no SIGPIPE death (exit status and output unchanged)
python3 - "$TPROF_SO" "$V" "$native" > "$WORK/err" <<'EOF' || fail "broken pipe: $(cat "$WORK/err")"
import os, subprocess, sys
so, victim, native = sys.argv[1:]
r, w = os.pipe()
os.close(r)
env = dict(os.environ, LD_PRELOAD=so, TPROF_OUTPUT="none", TPROF_JSON="/dev/fd/%d" % w)
p = subprocess.run([victim], env=env, pass_fds=[w], capture_output=True, text=True)
want = "tprof: TPROF_JSON: cannot write /dev/fd/%d: Broken pipe; report not written\n" % w
ok = p.returncode == 0 and p.stdout.strip() == native and p.stderr == want
print("status %d, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr))
sys.exit(0 if ok else 1)
EOF
rm -f "$WORK/log" "$WORK/log.json" "$WORK/to_fd3"

# A link to a regular file: the link stays, its target gets the report (relative links resolve
# from the link's directory); a dangling link creates its target. No temporary file is left. The
# new file's mode comes from the umask, never from the file it replaces (which another user may
# have made writable by all, or set-uid).
mkdir "$WORK/sub"
echo old > "$WORK/sub/real.json"
chmod 4666 "$WORK/sub/real.json"
ln -s sub/real.json "$WORK/link.json"
ln -s sub/new.json "$WORK/dangling.json"
old_umask=$(umask)
umask 027
run TPROF_JSON="$WORK/link.json" TPROF_TRACE="$WORK/dangling.json"
umask "$old_umask"
[ ! -s "$WORK/err" ] || fail "links to files: $(cat "$WORK/err")"
[ "$(kind "$WORK/link.json")" = "symbolic link" ] && [ "$(kind "$WORK/dangling.json")" = "symbolic link" ] ||
  fail "a link was replaced: $(kind "$WORK/link.json"), $(kind "$WORK/dangling.json")"
[ "$(kind "$WORK/sub/real.json")" = "regular file" ] || fail "the link's target became: $(kind "$WORK/sub/real.json")"
[ "$(stat -c %a "$WORK/sub/real.json")" = 640 ] || fail "the replaced file's mode is not the umask's: $(stat -c %a "$WORK/sub/real.json")"
[ "$(stat -c %a "$WORK/sub/new.json")" = 640 ] || fail "the new file's mode is not the umask's: $(stat -c %a "$WORK/sub/new.json")"
jcheck "$WORK/sub/real.json" "m['peak_bytes'] == 14000"
[ -s "$WORK/sub/new.json" ] || fail "the dangling link's target was not created"
[ "$(ls -A "$WORK/sub" | tr '\n' ' ')" = "new.json real.json " ] || fail "left in sub/: $(ls -A "$WORK/sub")"
exit 0
