#!/bin/sh
# elfutils never in the profiled process for a report. The stack walks read CFA rules from .eh_frame
# in memory (track/unwind/ehframe.c), symbol tables are read from the files (track/sym/symtab.c),
# and the report's names come from the reporter, a tprof process of its own
# (preload/handoff.c): a process that writes no report starts none and loads no libdw.so.1 (nor its
# namespace's libelf, libz, liblzma, libbz2 and second libc), even with threads; one that writes a
# report does not load it either, its reporter does, once; its call sites were walked in full
# (leak_me's site has main under it). A report written from a fatal signal's handler with another
# thread alive (which could be inside the dynamic loader, holding its lock) is named as fully, file
# and line, since nothing is loaded in the handler. Seen from outside, deterministically: the opens
# of libdw.so.1 by each process (strace). Needs strace.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
strace -f -qq -e trace=openat -o "$WORK/probe" true 2>/dev/null || { echo "SKIP: no strace"; exit 77; }
dw() { grep -c 'openat(.*libdw\.so\.1"' "$1"; }
# dw_of PID FILE: the opens of libdw.so.1 by that process
dw_of() { grep "^$1 " "$2" | grep -c 'openat(.*libdw\.so\.1"'; }
# reporter FILE: the pid of the reporter started (strace -e execve), or nothing
reporter() { awk '/execve\(.*"report", "--from-library"/ { print $1; exit }' "$1"; }

# Nothing written (a thread, a 3 MiB leak, the allocation stacks walked): libdw never opened.
TPROF_OUTPUT=none strace -f -qq -e trace=openat,execve -o "$WORK/none" env LD_PRELOAD="$TPROF_SO" "$V" \
  > "$WORK/out" 2> "$WORK/err" || fail "victim failed (none)"
[ "$(tail -n 1 "$WORK/out")" = "ok" ] || fail "stdout changed: $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
[ "$(dw "$WORK/none")" = 0 ] || fail "libdw opened with nothing written: $(dw "$WORK/none")"
[ -z "$(reporter "$WORK/none")" ] || fail "a reporter was started with nothing to write"

# A child of the root under the text report on stderr: writes nothing, loads nothing; the shell's
# reporter names its report.
strace -f -qq -e trace=openat,execve -o "$WORK/tree" env LD_PRELOAD="$TPROF_SO" \
  sh -c "\"$V\" > /dev/null; true" 2> "$WORK/err" || fail "shell failed"
child=$(grep "execve(\"$V\"" "$WORK/tree" | head -n 1 | cut -d' ' -f1)
[ -n "$child" ] || fail "no exec of the victim seen"
grep "^$child " "$WORK/tree" | grep -q 'libdw\.so\.1"' && fail "the child loaded libdw"
shell=$(head -n 1 "$WORK/tree" | cut -d' ' -f1)
[ "$(dw_of "$shell" "$WORK/tree")" = 0 ] || fail "the shell loaded libdw"
grep -q '^tprof ' "$WORK/err" || fail "no report from the shell: $(cat "$WORK/err")"

# A JSON report: libdw opened once, by the reporter; the site walked from leak_me to main.
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" strace -f -qq -e trace=openat,execve -o "$WORK/json" \
  env LD_PRELOAD="$TPROF_SO" "$V" > /dev/null || fail "victim failed (json)"
prog=$(head -n 1 "$WORK/json" | cut -d' ' -f1)
rep=$(reporter "$WORK/json")
[ -n "$rep" ] || fail "no reporter started for a JSON report"
[ "$(dw "$WORK/json")" = 1 ] || fail "libdw opens with a JSON report: $(dw "$WORK/json")"
[ "$(dw_of "$rep" "$WORK/json")" = 1 ] || fail "the reporter did not open libdw"
jcheck "$WORK/r.json" "site('leak_me')['live_at_exit_bytes'] == 3145728" \
  "any(f.get('function') == 'main' for f in site('leak_me')['frames'])"

# A report written from a fatal signal's handler, with one thread and with another alive: libdw is
# never loaded in the process, and the names have their lines either way.
S="$TB/victims/v_signal"
for t in one thread; do
  (ulimit -c 0; exec env --default-signal TPROF_OUTPUT=none TPROF_JSON="$WORK/s$t.json" \
    strace -f -qq -e trace=openat,execve -o "$WORK/s$t" env LD_PRELOAD="$TPROF_SO" "$S" SEGV $t) \
    > /dev/null 2>&1 && rc=0 || rc=$?
  [ $rc = 139 ] || fail "SEGV victim ($t) exited $rc, not 139"
  prog=$(head -n 1 "$WORK/s$t" | cut -d' ' -f1)
  [ "$(dw_of "$prog" "$WORK/s$t")" = 0 ] || fail "libdw opened in the process at a SEGV ($t)"
  [ "$(dw "$WORK/s$t")" = 1 ] || fail "libdw opens at a SEGV ($t): $(dw "$WORK/s$t")"
  jcheck "$WORK/s$t.json" "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['function'] == 'main'" \
    "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['module'].endswith('/v_signal')" \
    "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['line'] > 0"
done
echo "PASS lazy_dw"
