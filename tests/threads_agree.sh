#!/bin/sh
# program.threads and threads[] agree: four threads started one after another that neither
# allocate nor enter an op reach no hook, and never two are alive at once, so program.threads
# read 1 (the hooks' count) or 2 (the most alive at once) while threads[] listed all five.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" preload "$TB/victims/v_threadseq") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "len(d['threads']) == 5" "d['program']['threads'] == 5" \
  "len([t for t in d['threads'] if t['exited']]) == 4"
