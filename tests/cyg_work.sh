#!/bin/sh
# TPROF_WORK: FLOPs, bytes and shapes of -finstrument-functions ops from their own parameters,
# read where the DWARF places them at the enter hook's call, at -O0 (stack slots off the CFA),
# -O2 and -O3 (callee-saved registers; the seventh to ninth arguments on the stack); int and
# size_t sizes. A GEMV-shaped kernel is memory-bound against fixed peaks. A bad formula, a
# missing parameter and a kernel without debug information give one line each.
. "$TS/lib.sh"
W='mv_kernel: flops=2*rows*cols bytes=4*(rows*cols+rows+cols)
axpy_kernel: flops=2*n bytes=12*n   # size_t n
conv_kernel: flops=2*oc*oh*ow*ic*kh*kw bytes=4*(oc*oh*ow + ic*kh*kw) + 0*max(stride,min(1,2))/1'
# mv_kernel: 10 calls at 300 x 200, 5 at 64 x 1000; axpy_kernel 7 at n = 5000; conv_kernel 3.
MV_F=$((10 * 2 * 300 * 200 + 5 * 2 * 64 * 1000))
MV_B=$((10 * 4 * (300 * 200 + 300 + 200) + 5 * 4 * (64 * 1000 + 64 + 1000)))
CONV_F=$((3 * 2 * 4 * 5 * 6 * 3 * 2 * 7))
CONV_B=$((3 * 4 * (4 * 5 * 6 + 3 * 2 * 7)))
for o in O0 O2 O3; do
  native=$("$TB/victims/v_work_$o") || fail "native run failed ($o)"
  out=$(tp TPROF_OPS='*_kernel' TPROF_WORK="$W" TPROF_JSON="$WORK/$o.json" \
        TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=10 \
        LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_$o" 2> "$WORK/$o.err") || fail "victim failed ($o)"
  [ "$out" = "$native" ] || fail "stdout changed ($o): $out"
  [ ! -s "$WORK/$o.err" ] || fail "stderr ($o): $(cat "$WORK/$o.err")"
  jcheck "$WORK/$o.json" \
    "ops['mv_kernel']['calls'] == 15 and ops['mv_kernel']['flops'] == $MV_F" \
    "ops['mv_kernel']['bytes'] == $MV_B" \
    "ops['axpy_kernel']['flops'] == 7 * 2 * 5000 and ops['axpy_kernel']['bytes'] == 7 * 12 * 5000" \
    "ops['conv_kernel']['flops'] == $CONV_F and ops['conv_kernel']['bytes'] == $CONV_B" \
    "sorted((s['desc'], s['calls'], s['flops']) for s in ops['mv_kernel']['shapes']) == \
       [('rows=300 cols=200', 10, 10 * 2 * 300 * 200), ('rows=64 cols=1000', 5, 5 * 2 * 64 * 1000)]" \
    "[s['desc'] for s in ops['axpy_kernel']['shapes']] == ['n=5000']" \
    "[s['desc'] for s in ops['conv_kernel']['shapes']] == ['oc=4 oh=5 ow=6 ic=3 kh=2 kw=7 stride=3']" \
    "ops['mv_kernel']['bound'] == 'memory' and abs(ops['mv_kernel']['intensity'] - $MV_F / $MV_B) < 1e-9" \
    "ops['mv_kernel']['flops_known']"
done
# The verdict uses them as for BLAS: the GEMV is memory-bound.
jcheck "$WORK/O2.json" "d['verdict']['op'] != 'mv_kernel' or d['verdict']['bound'] == 'memory'" \
  "'memory-bound' in d['verdict']['text'] or d['verdict']['op'] != 'mv_kernel'"
tp TPROF_OPS=mv_kernel TPROF_WORK="$W" TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=10 \
  TPROF_JSON="$WORK/v.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_O2" > /dev/null ||
  fail "victim failed (verdict)"
jcheck "$WORK/v.json" "d['verdict']['op'] == 'mv_kernel' and d['verdict']['bound'] == 'memory'" \
  "'(memory-bound)' in d['verdict']['text']"

# A bad formula: one line, and the run goes on without work.
tp TPROF_OPS='*_kernel' TPROF_WORK='mv_kernel: flops=2*rows*(cols' TPROF_JSON="$WORK/bad.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_O2" > /dev/null 2> "$WORK/bad.err" || fail "victim failed (bad)"
[ "$(wc -l < "$WORK/bad.err")" -eq 1 ] || fail "bad formula: $(cat "$WORK/bad.err")"
grep -q "^tprof: TPROF_WORK=mv_kernel: flops=2\*rows\*(cols: expected ')' at character 30 of .*; using no work from arguments$" \
  "$WORK/bad.err" || fail "bad formula line: $(cat "$WORK/bad.err")"
jcheck "$WORK/bad.json" "ops['mv_kernel']['calls'] == 15 and ops['mv_kernel']['flops'] == 0"
# A parameter the function does not have: one line for that function; the others keep theirs.
tp TPROF_OPS='*_kernel' TPROF_WORK="mv_kernel: flops=2*rows*colz; axpy_kernel: flops=2*n" \
  TPROF_JSON="$WORK/miss.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_O3" > /dev/null 2> "$WORK/miss.err" ||
  fail "victim failed (missing)"
[ "$(cat "$WORK/miss.err")" = "tprof: TPROF_WORK: mv_kernel: parameter 'colz': no parameter has that name; mv_kernel gets no FLOPs or bytes" ] ||
  fail "missing parameter: $(cat "$WORK/miss.err")"
jcheck "$WORK/miss.json" "ops['mv_kernel']['flops'] == 0 and ops['axpy_kernel']['flops'] == 7 * 2 * 5000"
# No debug information: one line.
tp TPROF_OPS='*_kernel' TPROF_WORK="$W" TPROF_JSON="$WORK/nog.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_nog" > /dev/null 2> "$WORK/nog.err" || fail "victim failed (nog)"
[ "$(grep -c 'no debug information' "$WORK/nog.err")" -eq 3 ] && [ "$(wc -l < "$WORK/nog.err")" -eq 3 ] ||
  fail "no -g: $(cat "$WORK/nog.err")"
grep -q "^tprof: TPROF_WORK: mv_kernel: no debug information (built without -g?); mv_kernel gets no FLOPs or bytes$" \
  "$WORK/nog.err" || fail "no -g line: $(cat "$WORK/nog.err")"
jcheck "$WORK/nog.json" "ops['mv_kernel']['calls'] == 15 and ops['mv_kernel']['flops'] == 0"
# A formula that comes out negative (rows - 1000 < 0 for all 15 calls) gives no work, and a note.
tp TPROF_OPS='*_kernel' TPROF_WORK='mv_kernel: flops=rows-1000 bytes=cols' TPROF_JSON="$WORK/neg.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_O2" > /dev/null || fail "victim failed (negative)"
jcheck "$WORK/neg.json" "ops['mv_kernel']['flops'] == 0 and ops['mv_kernel']['bytes'] == 0" \
  "'15 op calls got no FLOPs or bytes from their TPROF_WORK entry: the formula overflowed, divided by zero or came out negative' in d['notes']"
# A kernel inlined into main (its hooks run in main's frame): rows = 9 + argc = 10, kept by gcc as
# a register + constant; 5 calls of 2 * 10 * 20.
tp TPROF_OPS=small_gemv TPROF_WORK='small_gemv: flops=2*rows*cols' TPROF_JSON="$WORK/inl.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_inline" > /dev/null 2> "$WORK/inl.err" || fail "victim failed (inline)"
[ ! -s "$WORK/inl.err" ] || fail "stderr (inline): $(cat "$WORK/inl.err")"
jcheck "$WORK/inl.json" "ops['small_gemv']['calls'] == 5 and ops['small_gemv']['flops'] == 5 * 2 * 10 * 20" \
  "[s['desc'] for s in ops['small_gemv']['shapes']] == ['rows=10 cols=20']"
# Four threads at once, the first calls while the DWARF is read: every call's work, exactly.
tp TPROF_OPS=mv_kernel TPROF_WORK='mv_kernel: flops=2*rows*cols' TPROF_JSON="$WORK/thr.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_threads" > /dev/null || fail "victim failed (threads)"
jcheck "$WORK/thr.json" "ops['mv_kernel']['calls'] == 8000" \
  "ops['mv_kernel']['flops'] == 2000 * 2 * 32 * (16 + 17 + 18 + 19)" \
  "sorted((s['desc'], s['calls']) for s in ops['mv_kernel']['shapes']) == \
     [('rows=%d cols=32' % r, 2000) for r in (16, 17, 18, 19)]"
# An op with a work entry is never demoted to a count (its FLOPs come from every call), even when
# every op would be: a hook costing 1 us and a threshold of 10^6 hooks. Without the entry it is.
for w in 'mv_kernel: flops=2*rows*cols' ''; do
  tp TPROF_OPS=mv_kernel TPROF_WORK="$w" TPROF_HOOK_NS=1000 TPROF_DEMOTE=1000000 \
    TPROF_JSON="$WORK/dem.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_threads" > /dev/null ||
    fail "victim failed (demote)"
  if [ -n "$w" ]; then
    jcheck "$WORK/dem.json" "not ops['mv_kernel']['demoted']" \
      "ops['mv_kernel']['flops'] == 2000 * 2 * 32 * (16 + 17 + 18 + 19)"
  else
    jcheck "$WORK/dem.json" "ops['mv_kernel']['demoted'] and ops['mv_kernel']['calls'] == 8000"
  fi
done
# A C++ member function, its entry named as the report names it without the parameter list.
tp TPROF_OPS='*matvec*' TPROF_WORK='nn::Layer::matvec: flops=2*rows*cols' TPROF_JSON="$WORK/cxx.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_cxx" > /dev/null 2> "$WORK/cxx.err" || fail "victim failed (C++)"
[ ! -s "$WORK/cxx.err" ] || fail "stderr (C++): $(cat "$WORK/cxx.err")"
jcheck "$WORK/cxx.json" "ops['nn::Layer::matvec(float const*, int, long)']['flops'] == 3 * 2 * 10 * 7" \
  "[s['desc'] for s in ops['nn::Layer::matvec(float const*, int, long)']['shapes']] == ['rows=10 cols=7']"
# The same entries from a file (TPROF_WORK_FILE), comments and all.
printf '# kernels\n%s\n' "$W" > "$WORK/work.txt"
tp TPROF_OPS='*_kernel' TPROF_WORK_FILE="$WORK/work.txt" TPROF_JSON="$WORK/f.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_work_O0" > /dev/null || fail "victim failed (file)"
jcheck "$WORK/f.json" "ops['mv_kernel']['flops'] == $MV_F and ops['conv_kernel']['bytes'] == $CONV_B"
exit 0
