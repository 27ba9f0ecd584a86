#!/bin/sh
# elfutils only when something needs it. The stack walks read CFA rules from .eh_frame in memory
# (track/unwind/ehframe.c), symbol tables are read from the files (track/sym/symtab.c): a process that writes
# no report never loads libdw.so.1 (nor its namespace's libelf, libz, liblzma, libbz2 and second
# libc), even with threads; one that writes a report loads it once, for the report's symbols, and
# its call sites were walked in full before that (leak_me's site has main under it). Seen from
# outside, deterministically: the opens of libdw.so.1 (strace). Needs strace.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
strace -f -qq -e trace=openat -o "$WORK/probe" true 2>/dev/null || { echo "SKIP: no strace"; exit 77; }
dw() { grep -c 'openat(.*libdw\.so\.1"' "$1"; }

# Nothing written (a thread, a 3 MiB leak, the allocation stacks walked): libdw never opened.
TPROF_OUTPUT=none strace -f -qq -e trace=openat -o "$WORK/none" env LD_PRELOAD="$TPROF_SO" "$V" \
  > "$WORK/out" 2> "$WORK/err" || fail "victim failed (none)"
[ "$(tail -n 1 "$WORK/out")" = "ok" ] || fail "stdout changed: $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
[ "$(dw "$WORK/none")" = 0 ] || fail "libdw opened with nothing written: $(dw "$WORK/none")"

# A child of the root under the text report on stderr: writes nothing, loads nothing.
strace -f -qq -e trace=openat,execve -o "$WORK/tree" env LD_PRELOAD="$TPROF_SO" \
  sh -c "\"$V\" > /dev/null; true" 2> "$WORK/err" || fail "shell failed"
child=$(grep "execve(\"$V\"" "$WORK/tree" | head -n 1 | cut -d' ' -f1)
[ -n "$child" ] || fail "no exec of the victim seen"
grep "^$child " "$WORK/tree" | grep -q 'libdw\.so\.1"' && fail "the child loaded libdw"
grep -q '^tprof ' "$WORK/err" || fail "no report from the shell: $(cat "$WORK/err")"

# A JSON report: libdw opened once, at the report; the site walked from leak_me to main.
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" strace -f -qq -e trace=openat -o "$WORK/json" \
  env LD_PRELOAD="$TPROF_SO" "$V" > /dev/null || fail "victim failed (json)"
[ "$(dw "$WORK/json")" = 1 ] || fail "libdw opens with a JSON report: $(dw "$WORK/json")"
jcheck "$WORK/r.json" "site('leak_me')['live_at_exit_bytes'] == 3145728" \
  "any(f.get('function') == 'main' for f in site('leak_me')['frames'])"

# A report written from a fatal signal's handler: with one thread, libdw is loaded there as at
# exit (file and line); with another thread alive, which could be inside the dynamic loader
# holding its lock, it is not: functions are named from the symbol tables, without lines.
S="$TB/victims/v_signal"
for t in one thread; do
  (ulimit -c 0; exec env --default-signal TPROF_OUTPUT=none TPROF_JSON="$WORK/s$t.json" \
    strace -f -qq -e trace=openat -o "$WORK/s$t" env LD_PRELOAD="$TPROF_SO" "$S" SEGV $t) \
    > /dev/null 2>&1 && rc=0 || rc=$?
  [ $rc = 139 ] || fail "SEGV victim ($t) exited $rc, not 139"
done
[ "$(dw "$WORK/sone")" = 1 ] || fail "libdw opens at a one-thread SEGV: $(dw "$WORK/sone")"
[ "$(dw "$WORK/sthread")" = 0 ] || fail "libdw opened in a signal handler with a thread alive"
jcheck "$WORK/sone.json" "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['function'] == 'main'" \
  "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['line'] > 0"
jcheck "$WORK/sthread.json" "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['function'] == 'main'" \
  "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['module'].endswith('/v_signal')" \
  "[s for s in m['sites'] if s['bytes'] == 12345][0]['frames'][0]['line'] == 0"
echo "PASS lazy_dw"
