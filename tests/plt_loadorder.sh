#!/bin/sh
# Loading order is never changed (tests/victims/v_loadorder.c, libtpld_[abc].c): the program
# dlopens libtpld_a.so, which needs libtpld_b.so and libtpld_c.so; libtpld_b's constructor calls
# dlopen(NULL) (as libGLdispatch's does while PyTorch is imported), which reaches tprof's wrapper
# and its PLT scan while libtpld_c's and libtpld_a's constructors are still pending. Opening one
# of those objects there (even RTLD_NOLOAD) would run libtpld_c's constructor before libtpld_b's
# has finished: it reads libtpld_b's table, still NULL, and the program dies of SIGSEGV. Under
# tprof: the same constructor order and output, and libtpld_c's op, tpld_conv (default
# TPROF_OPS), hooked from inside that constructor on: 1 call from libtpld_a's constructor and 3
# from tpld_run. RTLD_NOW and RTLD_LAZY (a slot ld.so has not bound yet).
. "$TS/lib.sh"
V="$TB/victims/v_loadorder"
A="$TB/victims/libtpld_a.so"
for mode in now lazy; do
  native=$("$V" "$A" "$mode") || fail "$mode: native run failed"
  [ "$native" = "order BCA sum 194.25" ] || fail "$mode: native run: $native"
  out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/$mode.json" LD_PRELOAD="$TPROF_SO" "$V" "$A" "$mode" \
        2>"$WORK/err") || fail "$mode: victim failed (status $?): $(cat "$WORK/err")"
  [ "$out" = "$native" ] || fail "$mode: stdout changed: $out vs $native"
  [ -s "$WORK/err" ] && fail "$mode: unexpected stderr: $(cat "$WORK/err")"
  jcheck "$WORK/$mode.json" "ops['tpld_conv']['calls'] == 4" \
    "ops['tpld_conv']['kind'] == 'conv' and ops['tpld_conv']['source'] == 'plt'"
done
exit 0
