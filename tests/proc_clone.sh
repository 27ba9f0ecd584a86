#!/bin/sh
# Children of clone system calls that glibc's fork does not wrap, so that no pthread_atfork
# handler runs (tests/victims/v_clone.c, reports with %p):
# - 20 children of clone3 made through syscall() (a copy of the process, as fork): each writes a
#   report under its own pid with its own counts, as a forked child does;
# - a child of vfork shares the parent's memory and writes none;
# - a child of clone3 made by the program's own syscall instruction, which no wrapper sees: told
#   apart from a vfork child on its way out (its memory is a copy), it writes a report under its
#   own pid, whose counts include its parent's from before the clone, as a note says.
. "$TS/lib.sh"
V=$TB/victims/v_clone
NOTE="this process was copied from its parent by a clone system call that tprof did not see: its figures include its parent's from before the clone"

out=$(tp TPROF_JSON="$WORK/raw.%p.json" LD_PRELOAD="$TPROF_SO" "$V" raw 20) || fail "v_clone raw failed"
[ "$(echo "$out" | wc -l)" -eq 20 ] || fail "20 children expected: $out"
echo "$out" | while read -r pid i; do
  [ -f "$WORK/raw.$pid.json" ] || { echo "FAIL: child $i ($pid) wrote no report: $(ls "$WORK")"; exit 1; }
  python3 "$TS/jcheck.py" "$WORK/raw.$pid.json" "d['program']['pid'] == $pid" \
    "site('clone_alloc')['allocs'] == $i + 1" "\"$NOTE\" not in d['notes']" || exit 1
done || fail "a clone3 child's report"
[ "$(ls "$WORK" | grep -c '^raw\.')" -eq 21 ] || fail "20 children and the parent: $(ls "$WORK")"

out=$(tp TPROF_JSON="$WORK/vf.%p.json" LD_PRELOAD="$TPROF_SO" "$V" vfork) || fail "v_clone vfork failed"
pid=${out% *}
[ -n "$pid" ] || fail "no vfork child"
[ -f "$WORK/vf.$pid.json" ] && fail "the vfork child $pid wrote a report"
[ "$(ls "$WORK" | grep -c '^vf\.')" -eq 1 ] || fail "the parent's report only: $(ls "$WORK")"

out=$(tp TPROF_JSON="$WORK/asm.%p.json" LD_PRELOAD="$TPROF_SO" "$V" asm) || fail "v_clone asm failed"
if [ "$out" = noasm ]; then
  echo "SKIP: no clone3 instruction sequence for this architecture in v_clone.c"
  exit 0
fi
pid=${out% *}
[ -f "$WORK/asm.$pid.json" ] || fail "the clone3 child $pid made by the program's own instruction wrote no report: $(ls "$WORK")"
jcheck "$WORK/asm.$pid.json" "d['program']['pid'] == $pid" "site('clone_alloc')['allocs'] == 5 + 3" \
  "\"$NOTE\" in d['notes']"
parent=$(ls "$WORK" | grep '^asm\.' | grep -v "^asm\.$pid\.json")
jcheck "$WORK/$parent" "site('clone_alloc')['allocs'] == 5" "\"$NOTE\" not in d['notes']"
exit 0
