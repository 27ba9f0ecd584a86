#!/bin/sh
# The advice to leave the hooks of functions too short to time out of the build
# (report/advice.c's tp_advice_exclude), followed: tests/victims/v_excl.c built with
# -finstrument-functions, its two tiny helpers demoted (TPROF_HOOK_NS=10000 with TPROF_DEMOTE=100
# puts the line at 1 ms a call), the sentence asserted with its exact calls, cost and flag (only
# the share of the run depends on this machine's speed); then the victim built again with that
# flag: the helpers are no ops any more, no hook runs inside work, and the sentence is gone.
. "$TS/lib.sh"
CC=${CC:-cc}
SRC="$TS/victims/v_excl.c"
$CC -std=gnu11 -g -O1 -finstrument-functions -o "$WORK/v_excl" "$SRC" || fail "build failed"
native=$("$WORK/v_excl") || fail "native run failed"
prof() { # binary json
  out=$(TPROF_OPS='tiny_*,work' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
        TPROF_JSON="$2" LD_PRELOAD="$TPROF_SO" "$1" 2>"$WORK/err") || fail "$1 failed: $(cat "$WORK/err")"
  [ "$out" = "$native" ] || fail "stdout changed ($1): $out vs $native"
}
prof "$WORK/v_excl" "$WORK/a.json"
said=" tiny_add and tiny_scale were called 180000 times, each call too short to time; their hooks cost ~3.60 s (P of the run): rebuild with -finstrument-functions-exclude-function-list=tiny_add,tiny_scale to leave them out."
jcheck "$WORK/a.json" \
  "ops['tiny_add']['calls'] == 120000 and ops['tiny_add']['demoted']" \
  "ops['tiny_scale']['calls'] == 60000 and ops['tiny_scale']['demoted']" \
  "ops['work']['calls'] == 3 and not ops['work']['demoted']" \
  "d['program']['hook_ns'] == 10000 and d['program']['hooks_ns'] > 0" \
  "__import__('re').sub(r'\\([0-9.<]+% of the run\\)', '(P of the run)', d['verdict']['text']).count('''$said''') == 1"
flag=$(python3 -c "import json,re,sys; print(re.search(r'rebuild with (\\S+) to leave', json.load(open(sys.argv[1]))['verdict']['text']).group(1))" "$WORK/a.json") ||
  fail "no flag in the verdict"
$CC -std=gnu11 -g -O1 -finstrument-functions "$flag" -o "$WORK/v_excl2" "$SRC" || fail "build with $flag failed"
prof "$WORK/v_excl2" "$WORK/b.json"
jcheck "$WORK/b.json" "'tiny_add' not in ops and 'tiny_scale' not in ops" \
  "ops['work']['calls'] == 3 and d['program']['hooks_ns'] == 0" \
  "'-finstrument-functions-exclude-function-list' not in d['verdict']['text']"
exit 0
