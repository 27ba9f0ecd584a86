#!/bin/sh
# The built-in work entries (track/ops/opnames.c) for darknet's gemm and im2col_cpu, on a library
# exporting both by darknet's names and signatures (libtpdkn.so, hooked through the PLT, with no
# setting at all) and on the same code built into a program with -finstrument-functions at -O0,
# -O2 and -O3 (parameters found through the DWARF; gemm's BETA is a float in memory): exact FLOPs
# and bytes, shapes by parameter name, im2col_cpu memory-bound with no FLOPs; a TPROF_WORK entry
# of the same name replaces the built-in one.
. "$TS/lib.sh"
# im2col_cpu: 3 calls at 3 channels of 8 x 10, 3 x 3 kernel, stride 1, pad 1 (out 8 x 10); 2 at
# 2 channels of 9 x 7, 3 x 3, stride 2, pad 0 (out 4 x 3). gemm: 4 at M 4, N 5, K 6, BETA 1; 1 with
# BETA 0.
IB=$((3 * 4 * (3 * 8 * 10 + 3 * 3 * 3 * 8 * 10) + 2 * 4 * (2 * 9 * 7 + 2 * 3 * 3 * 4 * 3)))
GF=$((5 * 2 * 4 * 5 * 6))
GB=$((4 * 4 * (4 * 6 + 6 * 5 + 4 * 5 + 4 * 5) + 4 * (4 * 6 + 6 * 5 + 4 * 5)))
check() { # json source
  jcheck "$1" "ops['im2col_cpu']['source'] == '$2' and ops['im2col_cpu']['calls'] == 5" \
    "ops['im2col_cpu']['flops'] == 0 and ops['im2col_cpu']['bytes'] == $IB" \
    "ops['im2col_cpu']['flops_known'] and ops['im2col_cpu']['bound'] == 'memory'" \
    "ops['im2col_cpu']['efficiency'] > 0 and ops['im2col_cpu']['intensity'] == 0" \
    "sorted((s['desc'], s['calls'], s['bytes']) for s in ops['im2col_cpu']['shapes']) == \
       [('channels=2 height=9 width=7 ksize=3 pad=0 stride=2', 2, 2 * 4 * (2 * 9 * 7 + 2 * 3 * 3 * 4 * 3)), \
        ('channels=3 height=8 width=10 ksize=3 pad=1 stride=1', 3, 3 * 4 * (3 * 8 * 10 + 3 * 3 * 3 * 8 * 10))]" \
    "ops['gemm']['calls'] == 5 and ops['gemm']['flops'] == $GF and ops['gemm']['bytes'] == $GB" \
    "sorted((s['desc'], s['calls']) for s in ops['gemm']['shapes']) == \
       [('M=4 N=5 K=6 BETA=0', 1), ('M=4 N=5 K=6 BETA=1', 4)]"
}
V="$TB/victims/v_dkn_plt"
native=$("$V") || fail "native run failed"
# No setting: every export of the program's own library is an op, and the built-ins apply.
out=$(tp TPROF_JSON="$WORK/plt.json" TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=10 \
      LD_PRELOAD="$TPROF_SO" "$V" 2> "$WORK/plt.err") || fail "victim failed (plt)"
[ "$out" = "$native" ] || fail "stdout changed: $out"
check "$WORK/plt.json" plt
# The only op, im2col_cpu is the verdict's: it only moves data, memory-bound.
tp TPROF_OPS=im2col_cpu TPROF_JSON="$WORK/v.json" TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=10 \
  TPROF_OUTPUT="$WORK/v.txt" LD_PRELOAD="$TPROF_SO" "$V" > /dev/null || fail "victim failed (verdict)"
jcheck "$WORK/v.json" "d['verdict']['op'] == 'im2col_cpu' and d['verdict']['bound'] == 'memory'" \
  "'only moves data, at ' in d['verdict']['text'] and \"of this machine's memory bandwidth (memory-bound)\" in d['verdict']['text']"
tr '\n' ' ' < "$WORK/v.txt" | grep -q "im2col_cpu takes .* and only moves data, at " ||
  fail "text verdict: $(cat "$WORK/v.txt")"
# The user's entry for the same name wins over the built-in one; gemm keeps its own.
tp TPROF_WORK='im2col_cpu: flops=channels bytes=8*channels*ksize' TPROF_JSON="$WORK/o.json" \
  LD_PRELOAD="$TPROF_SO" "$V" > /dev/null 2> "$WORK/o.err" || fail "victim failed (override)"
jcheck "$WORK/o.json" "ops['im2col_cpu']['flops'] == 3 * 3 + 2 * 2" \
  "ops['im2col_cpu']['bytes'] == 8 * 3 * (3 * 3 + 2 * 2)" \
  "sorted(s['desc'] for s in ops['im2col_cpu']['shapes']) == ['channels=2 ksize=3', 'channels=3 ksize=3']" \
  "ops['gemm']['flops'] == $GF and ops['gemm']['bytes'] == $GB"
# -finstrument-functions builds of the same code: the built-in entries find the parameters by
# darknet's names in the DWARF.
for o in O0 O2 O3; do
  V="$TB/victims/v_dkn_$o"
  native=$("$V") || fail "native run failed ($o)"
  out=$(tp TPROF_OPS='gemm,im2col_cpu' TPROF_JSON="$WORK/$o.json" TPROF_PEAK_GFLOPS=100 \
        TPROF_PEAK_GBPS=10 TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$V" 2> "$WORK/$o.err") ||
    fail "victim failed ($o)"
  [ "$out" = "$native" ] || fail "stdout changed ($o): $out"
  [ ! -s "$WORK/$o.err" ] || fail "stderr ($o): $(cat "$WORK/$o.err")"
  check "$WORK/$o.json" instrumented
done
tp TPROF_OPS='gemm,im2col_cpu' TPROF_WORK='im2col_cpu: bytes=channels*height' \
  TPROF_JSON="$WORK/io.json" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$TB/victims/v_dkn_O2" \
  > /dev/null || fail "victim failed (instrumented override)"
jcheck "$WORK/io.json" "ops['im2col_cpu']['bytes'] == 3 * 3 * 8 + 2 * 2 * 9 and ops['im2col_cpu']['flops'] == 0" \
  "ops['gemm']['flops'] == $GF"
# A thread already running at the first call (a threaded BLAS starts its pool in its
# constructor): elfutils, loaded lazily, cannot be loaded safely from the hook then, so it is
# loaded at start-up when the PLT scan finds code built with -finstrument-functions. Without the
# scan (TPROF_PLT=0) the program runs as without tprof, one line says why, and the ops keep their
# calls without work; any TPROF_WORK entry loads elfutils at start-up.
V="$TB/victims/v_dkn_O2"
native=$("$V") || fail "native run failed (thread)"
out=$(tp TPROF_OPS='gemm,im2col_cpu' TPROF_JSON="$WORK/th.json" TPROF_OUTPUT=none \
      LD_PRELOAD="$TPROF_SO" "$V" thread 2> "$WORK/th.err") || fail "victim failed (thread)"
[ "$out" = "$native" ] || fail "stdout changed (thread): $out"
[ ! -s "$WORK/th.err" ] || fail "stderr (thread): $(cat "$WORK/th.err")"
check "$WORK/th.json" instrumented
out=$(tp TPROF_PLT=0 TPROF_OPS='gemm,im2col_cpu' TPROF_JSON="$WORK/th0.json" TPROF_OUTPUT=none \
      LD_PRELOAD="$TPROF_SO" "$V" thread 2> "$WORK/th0.err") || fail "victim failed (thread, no PLT scan)"
[ "$out" = "$native" ] || fail "stdout changed (thread, no PLT scan): $out"
[ "$(grep -c '^tprof: work entries: elfutils (libdw) is not loaded and cannot be loaded safely' "$WORK/th0.err")" = 1 ] ||
  fail "not one line (thread, no PLT scan): $(cat "$WORK/th0.err")"
jcheck "$WORK/th0.json" "ops['im2col_cpu']['calls'] == 5 and ops['gemm']['calls'] == 5" \
  "ops['im2col_cpu']['bytes'] == 0 and ops['gemm']['flops'] == 0"
out=$(tp TPROF_PLT=0 TPROF_OPS='gemm,im2col_cpu' TPROF_WORK='im2col_cpu: bytes=channels*height' \
      TPROF_JSON="$WORK/thw.json" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$V" thread) ||
  fail "victim failed (thread, TPROF_WORK)"
jcheck "$WORK/thw.json" "ops['im2col_cpu']['bytes'] == 3 * 3 * 8 + 2 * 2 * 9" "ops['gemm']['flops'] == $GF"
exit 0
