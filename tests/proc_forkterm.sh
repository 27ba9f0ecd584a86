#!/bin/sh
# Children signalled as they start (tests/victims/v_forkterm.c): the parent sends SIGTERM to each
# of 50 children the moment fork returns, when the child is still in tprof's fork handlers (a
# pool's terminate meets a worker it has just started). Such a signal was taken for one deferred
# in the parent and dropped: the child lived on in pause() and the parent waited for it forever.
# Each child must die by SIGTERM, as without tprof, and write its report first.
. "$TS/lib.sh"
V=$TB/victims/v_forkterm
native=$("$V" 50) || fail "native run failed: $native"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/c.%p.json" LD_PRELOAD="$TPROF_SO" "$V" 50 2> "$WORK/err")
rc=$?
[ "$out" = "50 of 50 died by SIGTERM" ] && [ $rc -eq 0 ] ||
  fail "$out (exit status $rc; 142: a child was left alive) $(cat "$WORK/err")"
[ -s "$WORK/err" ] && fail "tprof said: $(cat "$WORK/err")"
# the 50 children's reports, each ended by the signal, and the parent's
jcount() {
  python3 - "$WORK" << 'PY'
import glob, json, sys
notes = [json.load(open(f))["notes"] for f in glob.glob(sys.argv[1] + "/c.*.json")]
print(len(notes), sum("report written on signal TERM" in n for n in notes))
PY
}
[ "$(jcount)" = "51 50" ] || fail "reports, and those ended by SIGTERM: $(jcount)"
exit 0
