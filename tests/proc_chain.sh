#!/bin/sh
# A fork+exec chain two levels deep (tests/victims/v_chain.c): image a forks a child that execs
# b, which forks a child that execs c. Three reports, none overwritten: a's, and each child's,
# named by its pid, which is that of the image it exec'd (b, c): the child did nothing of its
# own before its exec and writes none. Each report holds its own allocation and no other
# image's. Output and exit status are the program's own.
. "$TS/lib.sh"
V=$TB/victims/v_chain
native=$("$V") || fail "native run failed: $?"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed: $?"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
[ "$(ls "$WORK" | grep -c 'json$')" -eq 3 ] || fail "expected 3 reports: $(ls "$WORK")"
jcheck "$WORK/r.json" "site('a_work')['bytes'] == 1111" "site('b_work')['count'] == 0" \
  "site('c_work')['count'] == 0"
b='' c=''
for f in "$WORK"/r.*.json; do
  if grep -q b_work "$f"; then b=$f; else c=$f; fi
done
[ -n "$b" ] && [ -n "$c" ] || fail "exec'd images' reports not found: $(ls "$WORK")"
jcheck "$b" "site('b_work')['bytes'] == 2222" "site('a_work')['count'] == 0" \
  "site('c_work')['count'] == 0" "d['program']['argv'][1:] == ['b']"
jcheck "$c" "site('c_work')['bytes'] == 3333" "site('a_work')['count'] == 0" \
  "site('b_work')['count'] == 0" "d['program']['argv'][1:] == ['c']"
# The child that exec'd c was forked by image b: its pid is b's child, not a's.
jcheck "$c" "d['program']['ppid'] == $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['program']['pid'])" "$b")"
exit 0
