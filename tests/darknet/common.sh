# Shared by tests/darknet_*.sh, sourced after tests/lib.sh: the network, what it implies, and the
# checks common to every darknet program.
skip() { echo "SKIP: $*"; exit 77; }
command -v darknet > /dev/null && [ -f /usr/lib/darknet/include/darknet.h ] ||
  skip "darknet is not installed (scripts/setup.sh installs Debian's package)"
CFG=$TS/darknet/small.cfg
TICS=10

# What make_network callocs depends on sizeof(layer) and sizeof(network) of the installed header.
printf '#include <darknet.h>\n#include <stdio.h>\nint main(void) { printf("%%zu %%zu\\n", sizeof(layer), sizeof(network)); return 0; }\n' \
  > "$WORK/sizes.c"
${CC:-cc} -I/usr/lib/darknet/include -o "$WORK/sizes" "$WORK/sizes.c" ||
  fail "cannot compile against /usr/lib/darknet/include/darknet.h"
eval "$(python3 "$TS/darknet/expect.py" "$CFG" $TICS $("$WORK/sizes"))" || fail "expect.py"

# `speed` prints its timing: those numbers differ from run to run, the rest must not.
mask() { sed -E '/Seconds|FLOPS:|Speed:/ s/[0-9]+(\.[0-9]+)?/N/g' "$1"; }
# darknet's layer table (stderr) as expect.py writes it: w x h x c -> w x h x c per layer.
layers_of() {
  sed -nE 's/.* ([0-9]+) x +([0-9]+) x +([0-9]+) +-> +([0-9]+) x +([0-9]+) x +([0-9]+).*/\1x\2x\3->\4x\5x\6/p' "$1" |
    tr '\n' ' ' | sed 's/ $//'
}

# darknet_native X: X's own view of the network must be expect.py's (so the derivation is checked
# against darknet itself), then an unprofiled `speed` run: $WORK/native.{out,err}, $native_rc.
darknet_native() {
  "$1" ops "$CFG" > "$WORK/ops.out" 2> "$WORK/ops.err" || fail "$1 ops failed: $(tail -n 3 "$WORK/ops.err")"
  grep -qx "Floating Point Operations: $NUMOPS" "$WORK/ops.out" ||
    fail "darknet counts other FLOPs than expect.py ($NUMOPS): $(cat "$WORK/ops.out")"
  [ "$(layers_of "$WORK/ops.err")" = "$LAYERS" ] ||
    fail "darknet's layers are not expect.py's: $(layers_of "$WORK/ops.err") vs $LAYERS"
  "$1" speed "$CFG" $TICS > "$WORK/native.out" 2> "$WORK/native.err"
  native_rc=$?
  [ $native_rc -eq 0 ] || fail "$1 speed failed ($native_rc): $(tail -n 3 "$WORK/native.err")"
}

# darknet_profiled X VAR=val...: `X speed` under tprof, report in $WORK/r.json and
# $WORK/report.txt; its exit status, stdout and stderr (darknet's layer table) those of the
# native run.
darknet_profiled() {
  x=$1; shift
  timeout 120 env TPROF_JSON="$WORK/r.json" TPROF_JSON_SITES=0 TPROF_OUTPUT="$WORK/report.txt" \
    "$@" LD_PRELOAD="$TPROF_SO" "$x" speed "$CFG" $TICS > "$WORK/prof.out" 2> "$WORK/prof.err"
  rc=$?
  [ $rc -eq $native_rc ] || fail "exit status $rc under tprof, $native_rc without: $(tail -n 3 "$WORK/prof.err")"
  [ "$(mask "$WORK/prof.out")" = "$(mask "$WORK/native.out")" ] ||
    fail "stdout changed: $(mask "$WORK/prof.out") vs $(mask "$WORK/native.out")"
  cmp -s "$WORK/prof.err" "$WORK/native.err" || fail "stderr changed: $(diff "$WORK/native.err" "$WORK/prof.err")"
  [ -s "$WORK/report.txt" ] || fail "no text report"
}

# The heap of any darknet run: every call site is in the JSON, so the peak is exactly what the
# sites held at that moment, and the blocks live at exit are what they still hold.
heap_adds_up() {
  jcheck "$WORK/r.json" \
    "m['peak_bytes'] > 0 and m['nsites_total'] == len(m['sites'])" \
    "m['peak_bytes'] == sum(s['live_at_peak_bytes'] for s in m['sites'])" \
    "m['live_at_exit_bytes'] == sum(s['live_at_exit_bytes'] for s in m['sites'])" \
    "m['live_at_exit_allocs'] == sum(s['live_at_exit_allocs'] for s in m['sites'])"
  ! grep -q '??' "$WORK/report.txt" || fail "unnamed frames (??) in the report: $(grep -m 3 '??' "$WORK/report.txt")"
}

# cli_checks X: darknet's program built by scripts/darknet-cli.sh (X) calls the library's gemm
# and im2col_cpu through the PLT: under TPROF_OPS=gemm,im2col_cpu (and the default TPROF_PLT),
# each is seen as often as forward_convolutional_layer calls it, gemm with the exact shapes,
# FLOPs and bytes of the cfg; the heap adds up, and each allocating function of libdarknet.so,
# named from its dynamic symbols, holds at exit exactly what it callocs for this network.
cli_checks() {
  darknet_native "$1"
  darknet_profiled "$1" TPROF_OPS=gemm,im2col_cpu
  heap_adds_up
  jcheck "$WORK/r.json" \
    "sorted(ops) == ['gemm', 'im2col_cpu']" \
    "ops['gemm']['source'] == 'plt' and ops['gemm']['kind'] == 'matmul' and ops['gemm']['flops_known']" \
    "ops['gemm']['calls'] == $GEMM_CALLS" \
    "ops['gemm']['flops'] == $GEMM_FLOPS" \
    "ops['gemm']['bytes'] == $GEMM_BYTES" \
    "sorted((s['m'], s['n'], s['k'], s['calls']) for s in ops['gemm']['shapes']) == $GEMM_SHAPES" \
    "all(s['desc'] == 'M=%d N=%d K=%d BETA=%d' % (s['m'], s['n'], s['k'], s['bytes'] // s['calls'] // 4 - s['m'] * s['k'] - s['k'] * s['n'] - s['m'] * s['n'] > 0) for s in ops['gemm']['shapes'])" \
    "ops['im2col_cpu']['source'] == 'plt' and ops['im2col_cpu']['kind'] == 'conv'" \
    "ops['im2col_cpu']['calls'] == $IM2COL_CALLS" \
    "all(site(f)['live_at_exit_bytes'] == b for f, b in $HEAP_BY_FN.items())" \
    "all(site(f)['frames'][0]['module'].endswith('/libdarknet.so') for f in $HEAP_BY_FN)" \
    "site('make_image')['frames'][1]['function'] == 'speed'"
}
