#!/bin/sh
# Exit cost in proportion to what is written. A report that nothing is written of (TPROF_OUTPUT=none
# and no JSON, trace or folded stacks; a child process whose text would go to stderr, where only the
# root speaks) is not built: no record is made, no reporter started, no call site named. Seen from
# outside, deterministically: the reporter is the tprof program exec'd with --from-library
# (preload/handoff.c), once per report that is written, never otherwise; nothing in the profiled
# processes reads their maps or loads libdw. Needs strace.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
strace -f -qq -e trace=openat -o "$WORK/probe" true 2>/dev/null || { echo "SKIP: no strace"; exit 77; }
reporters() { grep -c 'execve(.*"report", "--from-library"' "$1"; }

# Nothing written: not reported.
TPROF_OUTPUT=none strace -f -qq -e trace=openat,execve -o "$WORK/none" env LD_PRELOAD="$TPROF_SO" "$V" \
  > "$WORK/out" 2> "$WORK/err" || fail "victim failed (none)"
[ "$(tail -n 1 "$WORK/out")" = "ok" ] || fail "stdout changed: $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
[ "$(reporters "$WORK/none")" = 0 ] || fail "reported with nothing written: $(reporters "$WORK/none")"
grep -q '/proc/[0-9]*/maps\|libdw\.so\.1' "$WORK/none" && fail "maps read or libdw loaded with nothing written"

# A JSON report: one reporter, and the sites named.
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" strace -f -qq -e trace=openat,execve -o "$WORK/json" \
  env LD_PRELOAD="$TPROF_SO" "$V" > /dev/null || fail "victim failed (json)"
[ "$(reporters "$WORK/json")" = 1 ] || fail "reporters with a JSON report: $(reporters "$WORK/json")"
jcheck "$WORK/r.json" "site('leak_me')['live_at_exit_bytes'] == 3145728" \
  "any(f.get('function') == 'main' for f in site('leak_me')['frames'])"

# A shell and its child, the text on stderr: the root's report only. The child (the process
# that exec'd the victim) starts no reporter; the shell starts one.
strace -f -qq -e trace=openat,execve -o "$WORK/tree" env LD_PRELOAD="$TPROF_SO" \
  sh -c "\"$V\" > /dev/null; true" 2> "$WORK/err" || fail "shell failed"
child=$(grep "execve(\"$V\"" "$WORK/tree" | head -n 1 | cut -d' ' -f1)
[ -n "$child" ] || fail "no exec of the victim seen"
grep "^$child " "$WORK/tree" | grep -q 'from-library' && fail "the child started a reporter"
[ "$(reporters "$WORK/tree")" = 1 ] || fail "reporters in the tree: $(reporters "$WORK/tree")"
grep -q '^tprof ' "$WORK/err" || fail "no report from the shell: $(cat "$WORK/err")"
# the child with a JSON of its own (%p): written, so reported, the shell's too, by one reporter:
# the child leaves its record for the root's (the run's reports are made once)
TPROF_JSON="$WORK/t.%p.json" strace -f -qq -e trace=openat,execve -o "$WORK/tree2" \
  env LD_PRELOAD="$TPROF_SO" sh -c "\"$V\" > /dev/null; true" 2> /dev/null || fail "shell failed"
[ "$(reporters "$WORK/tree2")" = 1 ] || fail "reporters, a JSON each: $(reporters "$WORK/tree2")"
[ "$(ls "$WORK"/t.*.json | wc -l)" = 2 ] || fail "JSON reports: $(ls "$WORK")"
for f in "$WORK"/t.*.json; do
  jcheck "$f" "'record' not in d" "d['memory']['peak_bytes'] > 0"
done

# A script's forked children that only exec (bash runs each command in one) did nothing of their
# own, so they write no report, and nothing is recorded for one at their exec either, even
# with a JSON report per process: no reporter, no libdw, no symbol table of bash's read
# between the fork and the exec. Two reports: the forked child's /bin/true, and the one bash
# execs in its own process for the last command.
if command -v bash > /dev/null; then
  TPROF_OUTPUT=none TPROF_JSON="$WORK/b.%p.json" strace -f -qq -e trace=openat,execve -o "$WORK/bash" \
    env LD_PRELOAD="$TPROF_SO" bash -c '/bin/true; /bin/true' || fail "bash failed"
  child=$(grep 'execve("/bin/true"' "$WORK/bash" | head -n 1 | cut -d' ' -f1)
  [ -n "$child" ] && [ "$child" != "$(head -n 1 "$WORK/bash" | cut -d' ' -f1)" ] ||
    fail "no forked child of bash seen: $(cat "$WORK/bash")"
  awk -v c="$child" '$1 == c && /execve\("\/bin\/true"/ { exit } $1 == c' "$WORK/bash" > "$WORK/pre"
  grep -E 'libdw\.so\.1|from-library|bin/bash"' "$WORK/pre" &&
    fail "bash's forked child reported before its exec"
  [ "$(ls "$WORK"/b.*.json | wc -l)" = 2 ] || fail "JSON reports of the script: $(ls "$WORK")"
fi
echo "PASS exit_cost"
