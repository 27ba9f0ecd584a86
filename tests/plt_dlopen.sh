#!/bin/sh
# Libraries loaded while the program runs (tests/victims/v_cyg_dl.c): a plugin found by bare name
# through the program's DT_RUNPATH (which tprof's dlopen wrapper must keep working), whose code
# calls another library's export through its PLT — hooked once loaded, and again after a dlclose
# and a second dlopen. A call made through a dlsym handle is not interceptable (documented): only
# the calls it makes through its own library's PLT are seen. RTLD_DEEPBIND is removed, once
# warned.
. "$TS/lib.sh"
# libtpop.so's gemm stand-ins get their work as any library's functions would: from a work file.
export TPROF_WORK_FILE="$TS/victims/libtpop.work"
V="$TB/victims/v_cyg_dl"
native=$("$V") || fail "native run failed"
[ "$native" = "total 640.0 unloaded 2" ] || fail "native run: $native"
out=$(TPROF_OPS='*gemm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" \
      2>"$WORK/err") || fail "victim failed: $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
[ -s "$WORK/err" ] && fail "unexpected stderr: $(cat "$WORK/err")"
# 7 + 8 calls of 2x2x3 (beta 0) from the plugin, each with an inner tpop_gemm_nn call (its own
# row, no work of its own); the 2 handle calls only show their inner tpop_gemm_nn (2x2x2,
# accumulating), with its work.
jcheck "$WORK/r.json" \
  "ops['tpop_gemm']['calls'] == 15" "ops['tpop_gemm']['flops'] == 15 * 24" \
  "ops['tpop_gemm']['bytes'] == 15 * 4 * (6 + 6 + 4)" \
  "[(s['m'], s['n'], s['k'], s['calls']) for s in ops['tpop_gemm']['shapes']] == [(2, 2, 3, 15)]" \
  "ops['tpop_gemm_nn']['calls'] == 15 + 2 and ops['tpop_gemm_nn']['flops'] == 32" \
  "len(d['ops']) == 2"
out=$(TPROF_OPS='*gemm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/deep.json" LD_PRELOAD="$TPROF_SO" \
      "$V" deepbind 2>"$WORK/err") || fail "victim failed with RTLD_DEEPBIND: $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed with RTLD_DEEPBIND: $out"
[ "$(cat "$WORK/err")" = "tprof: dlopen(libtpop_user.so, RTLD_DEEPBIND): RTLD_DEEPBIND removed: it would bypass tprof's wrappers" ] || \
  fail "RTLD_DEEPBIND warning: $(cat "$WORK/err")"
jcheck "$WORK/deep.json" "ops['tpop_gemm']['calls'] == 15"
# The report's note comes from tp_names_collect(), once tp_collect() calls it.
if objdump -d "$TPROF_SO" | grep -q 'call.*<tp_names_collect>'; then
  jcheck "$WORK/deep.json" "any('RTLD_DEEPBIND was removed from 2 dlopen calls' in n for n in d['notes'])"
else
  echo "note: tp_collect() does not call tp_names_collect() yet: report notes not checked"
fi
# Loaded lazily: the plugin's PLT slot is bound by tprof; libtpop.so, in the plugin's own scope,
# is still unloaded by dlclose.
out=$(TPROF_OPS='*gemm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/lazy.json" LD_PRELOAD="$TPROF_SO" "$V" lazy \
      2>"$WORK/err") || fail "victim failed (lazy): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (lazy): $out vs $native"
jcheck "$WORK/lazy.json" "ops['tpop_gemm']['calls'] == 15" "ops['tpop_gemm_nn']['calls'] == 15 + 2"
# A lazily loaded plugin calling into a library of the global scope it does not depend on: the
# library is dlclose'd between two calls (ld.so's binding at the first call keeps it loaded; the
# hooked slot must still be bound by ld.so, not by tprof, which would not record that).
native=$("$V" global) || fail "native run failed (global)"
[ "$native" = "global 20.0" ] || fail "native run (global): $native"
out=$(TPROF_OPS='*gemm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/global.json" LD_PRELOAD="$TPROF_SO" "$V" global \
      2>"$WORK/err") || fail "victim failed (global): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (global): $out vs $native"
jcheck "$WORK/global.json" "ops['tpop_gemm']['calls'] == 2"
native=$("$V")
# With hooks off the plugin still loads by its bare name.
out=$(TPROF_PLT=0 TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$V") || fail "victim failed with TPROF_PLT=0"
[ "$out" = "$native" ] || fail "stdout changed with TPROF_PLT=0"
exit 0
