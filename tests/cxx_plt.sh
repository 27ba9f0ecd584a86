#!/bin/sh
# Exports of a C++-linked library become ops with no settings (tests/victims/libtpcxx.cc,
# v_cxx_plt.cc): C exports whose names match no pattern (cx_solve, cx_check, ...), a C++ export by
# its demangled name (cx::conv_rows matches *conv*; cx::helper does not), the default list's
# set-up exclusions (make_*). Exceptions thrown inside hooked calls reach their handlers: caught
# by the caller (3 cx_check calls), inside the library by an op still running (cx_nested, 2 of its
# 4 cx_check calls throw, twice), and two hooked calls away (cx_outer -> cx_check, twice). The
# program's output and exit status are unchanged, every call is counted, and the 11 calls the
# exceptions unwound end when the handler catches them.
. "$TS/lib.sh"
V="$TB/victims/v_cxx_plt"
native=$("$V") || fail "native run failed"
out=$(env -u TPROF_OPS TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" \
      2>"$WORK/err") || fail "victim failed ($?): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
jcheck "$WORK/r.json" \
  "ops['cx_solve']['calls'] == 5 and ops['cx_solve']['source'] == 'plt'" \
  "ops['cx_check']['calls'] == 2 + 3 + 2*4 + 2" \
  "ops['cx_nested']['calls'] == 2 and ops['cx_outer']['calls'] == 2" \
  "ops['cx::conv_rows(int)']['calls'] == 2 and ops['cx::conv_rows(int)']['kind'] == 'conv'" \
  "not any(o['name'].startswith('cx::helper') or o['name'].startswith('make_') for o in d['ops'])" \
  "ops['cx_nested']['self_ns'] <= ops['cx_nested']['total_ns']" \
  "any(n.startswith('11 calls hooked through the PLT were left by longjmp or an exception') for n in d['notes'])"
# The same with every export named: the same calls.
out=$(TPROF_OPS='cx_*,*conv*' TPROF_OUTPUT=none TPROF_JSON="$WORK/named.json" \
      LD_PRELOAD="$TPROF_SO" "$V" 2>"$WORK/err") || fail "victim failed: $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (named): $out"
jcheck "$WORK/named.json" "ops['cx_check']['calls'] == 15" "ops['cx_solve']['calls'] == 5"
exit 0
