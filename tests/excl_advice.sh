#!/bin/sh
# The advice to leave the hooks of functions too short to time out of the build
# (report/analyze/advice.c's tp_advice_exclude), followed: tests/victims/v_excl.c built with
# -finstrument-functions, its two tiny helpers demoted (TPROF_HOOK_NS=10000 with TPROF_DEMOTE=100
# puts the line at 1 ms a call), the sentence asserted with its exact calls, cost and flag (only
# the share of the run depends on this machine's speed); then the victim built again with that
# flag: the helpers are no ops any more, no hook runs inside work, and the sentence is gone. The
# same for a C++ function template whose name holds a comma (tests/victims/v_excl_cxx.cc).
. "$TS/lib.sh"
CC=${CC:-cc}
SRC="$TS/victims/v_excl.c"
$CC -std=gnu11 -g -O1 -finstrument-functions -o "$WORK/v_excl" "$SRC" || fail "build failed"
native=$("$WORK/v_excl") || fail "native run failed"
prof() { # binary json
  out=$(TPROF_OPS='tiny_*,work,*tiny_mix*,net::work*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
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
# tprof merge: the calls summed, the cost of one hook the mean of the processes' (here equal)
"$TPROF_CLI" merge "$WORK/a.json" "$WORK/a.json" -o "$WORK/m.json" || fail "tprof merge failed"
jcheck "$WORK/m.json" "d['program']['hook_ns'] == 10000" \
  "'tiny_add and tiny_scale were called 360000 times, each call too short to time; their hooks cost ~7.20 s (' in d['verdict']['text']"
# the flag as the verdict gives it, read as a shell reads it (the C++ one below is quoted)
flag_of() {
  python3 -c "import json,re,sys; print(re.search(r'rebuild with (.+) to leave', json.load(open(sys.argv[1]))['verdict']['text']).group(1))" "$1" ||
    fail "no flag in the verdict of $1"
}
eval "set -- $(flag_of "$WORK/a.json")"
$CC -std=gnu11 -g -O1 -finstrument-functions "$1" -o "$WORK/v_excl2" "$SRC" || fail "build with $1 failed"
prof "$WORK/v_excl2" "$WORK/b.json"
jcheck "$WORK/b.json" "'tiny_add' not in ops and 'tiny_scale' not in ops" \
  "ops['work']['calls'] == 3 and d['program']['hooks_ns'] == 0" \
  "'-finstrument-functions-exclude-function-list' not in d['verdict']['text']"

# C++: net::tiny_mix<float, 2>, whose template arguments GCC spells its own way: the entry is
# net::tiny_mix, which g++ given the flag leaves out; net::work, which does not hold it, stays an
# op.
CXX=${CXX:-c++}
SRC="$TS/victims/v_excl_cxx.cc"
if $CXX -g -O1 -finstrument-functions -o "$WORK/v_excl_cxx" "$SRC" 2> /dev/null; then
  native=$("$WORK/v_excl_cxx") || fail "native run failed (C++)"
  prof "$WORK/v_excl_cxx" "$WORK/c.json"
  said=" void net::tiny_mix<float, 2>(float) was called 120000 times, each call too short to time; its hooks cost ~2.40 s (P of the run): rebuild with -finstrument-functions-exclude-function-list=net::tiny_mix to leave it out."
  jcheck "$WORK/c.json" \
    "ops['void net::tiny_mix<float, 2>(float)']['calls'] == 120000" \
    "ops['void net::tiny_mix<float, 2>(float)']['demoted'] and ops['net::work()']['calls'] == 3" \
    "__import__('re').sub(r'\\([0-9.<]+% of the run\\)', '(P of the run)', d['verdict']['text']).count(r'''$said''') == 1"
  eval "set -- $(flag_of "$WORK/c.json")"
  [ "$1" = '-finstrument-functions-exclude-function-list=net::tiny_mix' ] || fail "C++ flag: $1"
  $CXX -g -O1 -finstrument-functions "$1" -o "$WORK/v_excl_cxx2" "$SRC" || fail "build with $1 failed (C++)"
  prof "$WORK/v_excl_cxx2" "$WORK/d.json"
  jcheck "$WORK/d.json" "not any('tiny_mix' in o['name'] for o in d['ops'])" \
    "ops['net::work()']['calls'] == 3 and d['program']['hooks_ns'] == 0"
else
  echo "note: no C++ compiler ($CXX): the C++ case is not checked"
fi
exit 0
