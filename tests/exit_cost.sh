#!/bin/sh
# Exit cost in proportion to what is written. A report that nothing is written of (TPROF_OUTPUT=none
# and no JSON, trace or folded stacks; a child process whose text would go to stderr, where only the
# root speaks) is not built: no call site is symbolised. Seen from outside, deterministically: the
# symboliser reads /proc/<pid>/maps (libdwfl's dwfl_linux_proc_report; nothing else of tprof opens
# that name with the pid in it), once per report that is written, never otherwise. Needs strace.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
strace -f -qq -e trace=openat -o "$WORK/probe" true 2>/dev/null || { echo "SKIP: no strace"; exit 77; }
maps() { grep -c 'openat(AT_FDCWD, "/proc/[0-9]*/maps"' "$1"; }

# Nothing written: not symbolised.
TPROF_OUTPUT=none strace -f -qq -e trace=openat -o "$WORK/none" env LD_PRELOAD="$TPROF_SO" "$V" \
  > "$WORK/out" 2> "$WORK/err" || fail "victim failed (none)"
[ "$(tail -n 1 "$WORK/out")" = "ok" ] || fail "stdout changed: $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
[ "$(maps "$WORK/none")" = 0 ] || fail "symbolised with nothing written: $(maps "$WORK/none")"

# A JSON report: one symboliser, and the sites named.
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" strace -f -qq -e trace=openat -o "$WORK/json" \
  env LD_PRELOAD="$TPROF_SO" "$V" > /dev/null || fail "victim failed (json)"
[ "$(maps "$WORK/json")" = 1 ] || fail "symbolisers with a JSON report: $(maps "$WORK/json")"
jcheck "$WORK/r.json" "site('leak_me')['live_at_exit_bytes'] == 3145728"

# A shell and its child, the text on stderr: the root's report only. The child (the process
# that exec'd the victim) opens no maps; the shell opens them once.
strace -f -qq -e trace=openat,execve -o "$WORK/tree" env LD_PRELOAD="$TPROF_SO" \
  sh -c "\"$V\" > /dev/null; true" 2> "$WORK/err" || fail "shell failed"
child=$(grep "execve(\"$V\"" "$WORK/tree" | head -n 1 | cut -d' ' -f1)
[ -n "$child" ] || fail "no exec of the victim seen"
grep "^$child " "$WORK/tree" | grep -q '/proc/[0-9]*/maps' && fail "the child symbolised"
[ "$(maps "$WORK/tree")" = 1 ] || fail "symbolisers in the tree: $(maps "$WORK/tree")"
grep -q '^tprof ' "$WORK/err" || fail "no report from the shell: $(cat "$WORK/err")"
# the child with a JSON of its own (%p): written, so symbolised, the shell's too
TPROF_JSON="$WORK/t.%p.json" strace -f -qq -e trace=openat -o "$WORK/tree2" \
  env LD_PRELOAD="$TPROF_SO" sh -c "\"$V\" > /dev/null; true" 2> /dev/null || fail "shell failed"
[ "$(maps "$WORK/tree2")" = 2 ] || fail "symbolisers, a JSON each: $(maps "$WORK/tree2")"
[ "$(ls "$WORK"/t.*.json | wc -l)" = 2 ] || fail "JSON reports: $(ls "$WORK")"

# A script's forked children that only exec (bash runs each command in one) did nothing of their
# own, so they write no report, and nothing is symbolised for one at their exec either, even
# with a JSON report per process: no libdw, no /proc/<pid>/maps, no symbol table of bash's read
# between the fork and the exec. Two reports: the forked child's /bin/true, and the one bash
# execs in its own process for the last command.
if command -v bash > /dev/null; then
  TPROF_OUTPUT=none TPROF_JSON="$WORK/b.%p.json" strace -f -qq -e trace=openat,execve -o "$WORK/bash" \
    env LD_PRELOAD="$TPROF_SO" bash -c '/bin/true; /bin/true' || fail "bash failed"
  child=$(grep 'execve("/bin/true"' "$WORK/bash" | head -n 1 | cut -d' ' -f1)
  [ -n "$child" ] && [ "$child" != "$(head -n 1 "$WORK/bash" | cut -d' ' -f1)" ] ||
    fail "no forked child of bash seen: $(cat "$WORK/bash")"
  awk -v c="$child" '$1 == c && /execve\("\/bin\/true"/ { exit } $1 == c' "$WORK/bash" > "$WORK/pre"
  grep -E 'libdw\.so\.1|/proc/[0-9]+/maps|bin/bash"' "$WORK/pre" &&
    fail "bash's forked child symbolised before its exec"
  [ "$(ls "$WORK"/b.*.json | wc -l)" = 2 ] || fail "JSON reports of the script: $(ls "$WORK")"
fi
echo "PASS exit_cost"
