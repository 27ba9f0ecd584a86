#!/bin/sh
# C++ exceptions through instrumented ops (tests/victims/v_cyg_cxx.cc): 4 of 12 forward passes
# throw from inner_softmax through conv_layer. g++ runs the exit hooks while unwinding; clang does
# not (and inlines conv_layer into forward_pass, whose hooks then share one frame): both must give
# exact counts and sound nesting. Names are demangled.
. "$TS/lib.sh"
OPS='*softmax*,*conv*,*forward*'
check() { # check REPORT: the figures both compilers must give
  jcheck "$1" \
    "ops['net::forward_pass(int)']['calls'] == 12" "ops['net::conv_layer(int)']['calls'] == 16" \
    "ops['net::inner_softmax(int)']['calls'] == 16" \
    "ops['net::conv_layer(int)']['kind'] == 'conv' and ops['net::inner_softmax(int)']['kind'] == 'softmax'" \
    "ops['net::forward_pass(int)']['self_ns'] < ops['net::forward_pass(int)']['total_ns']" \
    "ops['net::conv_layer(int)']['self_ns'] < ops['net::conv_layer(int)']['total_ns']" \
    "not any('no matching begin' in n for n in d['notes'])"
}
notes() { objdump -d "$TPROF_SO" | grep -q 'call.*<tp_names_collect>'; }
V="$TB/victims/v_cyg_cxx"
native=$("$V") || fail "native run failed"
out=$(TPROF_OPS="$OPS" TPROF_OUTPUT=none TPROF_JSON="$WORK/gcc.json" LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out"
check "$WORK/gcc.json"
jcheck "$WORK/gcc.json" "not any('left by longjmp' in n for n in d['notes'])"
if command -v clang++ >/dev/null 2>&1 && clang++ -g -O1 -finstrument-functions -o "$WORK/v_clang" "$TS/victims/v_cyg_cxx.cc" 2>"$WORK/cc.err"; then
  out=$(TPROF_OPS="$OPS" TPROF_OUTPUT=none TPROF_JSON="$WORK/clang.json" LD_PRELOAD="$TPROF_SO" "$WORK/v_clang") || fail "clang victim failed"
  [ "$out" = "$native" ] || fail "stdout changed (clang): $out"
  check "$WORK/clang.json"
  if notes; then
    jcheck "$WORK/clang.json" "any(n.startswith('8 instrumented op calls were left by longjmp or an exception') for n in d['notes'])"
  fi
else
  echo "note: no clang++: only the g++ build checked"
fi
notes || echo "note: tp_collect() does not call tp_names_collect() yet: report notes not checked"
exit 0
