#!/bin/sh
# TPROF_WORK on a shared library's export hooked through the PLT (libtpwork.so's tpw_scale):
# parameters placed by the x86-64 ABI, their types from the library's DWARF or from a prototype
# given in the entry (then the DWARF's names are not needed): int and size_t in registers, a
# float in xmm0 (nz()), and the eighth and ninth arguments on the stack, with a negative int.
. "$TS/lib.sh"
V="$TB/victims/v_work_plt"
native=$("$V") || fail "native run failed"
# 4 calls: n 100, m 7, a5 3, a6 5, alpha 0.5; 2 calls: n 20, m 3, a5 2, a6 -1, alpha 0
F=$((4 * (100 * 7 * 3 + 1) + 2 * (20 * 3 * 2 + 0)))
B=$((4 * (8 * 100 * 7 + 5) + 2 * (8 * 20 * 3 - 1)))
W='tpw_scale: flops=n*m*a5+nz(alpha) bytes=8*n*m+a6'
out=$(tp TPROF_OPS=tpw_scale TPROF_WORK="$W" TPROF_JSON="$WORK/d.json" LD_PRELOAD="$TPROF_SO" "$V" \
      2> "$WORK/d.err") || fail "victim failed (DWARF)"
[ "$out" = "$native" ] || fail "stdout changed: $out"
[ ! -s "$WORK/d.err" ] || fail "stderr: $(cat "$WORK/d.err")"
jcheck "$WORK/d.json" "ops['tpw_scale']['source'] == 'plt' and ops['tpw_scale']['calls'] == 6" \
  "ops['tpw_scale']['flops'] == $F and ops['tpw_scale']['bytes'] == $B" \
  "sorted(s['desc'] for s in ops['tpw_scale']['shapes']) == \
     ['n=100 m=7 a5=3 alpha=1 a6=5', 'n=20 m=3 a5=2 alpha=0 a6=-1']"
# The same from a prototype with names of its own.
P='tpw_scale(float s, const float *p, float *q, int rows, size_t cols, int u, int v, int w, int z): flops=rows*cols*w+nz(s) bytes=8*rows*cols+z'
tp TPROF_OPS=tpw_scale TPROF_WORK="$P" TPROF_JSON="$WORK/p.json" LD_PRELOAD="$TPROF_SO" "$V" \
  > /dev/null 2> "$WORK/p.err" || fail "victim failed (prototype)"
[ ! -s "$WORK/p.err" ] || fail "stderr: $(cat "$WORK/p.err")"
jcheck "$WORK/p.json" "ops['tpw_scale']['flops'] == $F and ops['tpw_scale']['bytes'] == $B" \
  "sorted(s['desc'] for s in ops['tpw_scale']['shapes'])[0] == 'rows=100 cols=7 w=3 s=1 z=5'"
# A name the function does not have: one line, and the op stays without work.
tp TPROF_OPS=tpw_scale TPROF_WORK='tpw_scale: flops=rows*m' TPROF_JSON="$WORK/m.json" \
  LD_PRELOAD="$TPROF_SO" "$V" > /dev/null 2> "$WORK/m.err" || fail "victim failed (missing)"
[ "$(cat "$WORK/m.err")" = "tprof: TPROF_WORK: tpw_scale: parameter 'rows': no parameter has that name; tpw_scale gets no FLOPs or bytes" ] ||
  fail "missing parameter: $(cat "$WORK/m.err")"
jcheck "$WORK/m.json" "ops['tpw_scale']['calls'] == 6 and ops['tpw_scale']['flops'] == 0"
exit 0
