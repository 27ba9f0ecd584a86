#!/bin/sh
# fork from a threaded program: no deadlock in the children, one report each.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" timeout 120 env LD_PRELOAD="$TPROF_SO" "$TB/victims/v_forkthreads") || fail "victim failed or hung: $?"
[ "$out" = "children ok 20" ] || fail "stdout changed: $out"
n=$(ls "$WORK"/r.*.json | wc -l)
[ "$n" -eq 20 ] || fail "expected 20 child reports, found $n"
for f in "$WORK"/r.*.json; do
  jcheck "$f" "site('child_alloc')['allocs'] == 1" "site('child_alloc')['bytes'] == 3000"
done
jcheck "$WORK/r.json" "site('child_alloc')['count'] == 0" "site('busy_alloc')['allocs'] == site('busy_alloc')['frees']"
