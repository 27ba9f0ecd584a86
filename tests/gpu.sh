#!/bin/sh
# CUDA without a GPU: tests/victims/libtpfakecuda.so stands in for the driver (libcuda.so.1, device
# memory in host pages, synchronise calls that sleep FAKECUDA_SYNC_MS), and v_cuda reaches it as
# nvcc's runtime does (dlopen, cuGetProcAddress_v2 from dlsym on the handle, every function from
# it) and, as v_cuda_linked, through the exported names. Known to the byte: the device's peak and
# what is allocated at exit, each call site with its kind and line, copies by direction, the
# memset, kernels with their grids and blocks, the synchronise calls (at least the injected sleep,
# and the part inside the op), the op's wait named as the GPU's; the text's GPU section and
# verdict sentence. A program whose driver is missing, or that asks whether it is there, behaves
# byte for byte as it does natively; a program without CUDA has no GPU section.
. "$TS/lib.sh"
T="$TPROF_CLI"
mkdir -p "$WORK/lib"
cp "$TB/victims/libtpfakecuda.so" "$WORK/lib/libcuda.so.1" || fail "no stand-in driver"
cp "$TB/victims/libtpfakecublas.so" "$WORK/lib/libcublas.so.12" || fail "no stand-in cuBLAS"
line() { grep -n "/\* MARK:$1 \*/" "$TS/victims/v_cuda.c" | cut -d: -f1; }
A=$(line a); B=$(line b); M=$(line m); S=$(line s)
[ -n "$A" ] && [ -n "$B" ] && [ -n "$M" ] && [ -n "$S" ] || fail "markers not found in v_cuda.c"

check() { # JSON: the figures of v_cuda's work
  jcheck "$1" "d['gpu']['used'] is True and d['gpu']['driver_calls'] > 0" \
    "d['gpu']['devices'] == [{'device': $2, 'peak_bytes': 7864320, 'peak_ns': d['gpu']['devices'][0]['peak_ns'], 'peak_op': None, 'allocs': 4, 'frees': 2, 'bytes_allocated': 7864320, 'live_at_exit_bytes': 3145728, 'live_at_exit_allocs': 2}]" \
    "0 < d['gpu']['devices'][0]['peak_ns'] <= d['program']['wall_ns']" \
    "[(s['kind'], s['bytes'], s['live_at_peak_bytes'], s['live_at_exit_bytes'], s['allocs'], s['frees'], s['frames'][0]['function'], s['frames'][0]['line'], s['device']) for s in d['gpu']['sites']] == [('device', 4194304, 4194304, 0, 1, 1, 'work', $B, $2), ('managed', 2097152, 2097152, 2097152, 1, 0, 'work', $M, $2), ('device', 1048576, 1048576, 1048576, 1, 0, 'work', $A, $2), ('async', 524288, 524288, 0, 1, 1, 'work', $S, $2)]" \
    "[(c['direction'], c['calls'], c['async_calls'], c['bytes']) for c in d['gpu']['copies']] == [('htod', 3, 1, 1118208), ('dtoh', 1, 0, 1048576), ('dtod', 1, 0, 262144)]" \
    "all(c['sync_ns'] > 0 for c in d['gpu']['copies'])" \
    "(d['gpu']['memset_calls'], d['gpu']['memset_bytes'], d['gpu']['unknown_frees'], d['gpu']['untracked_allocs']) == (1, 4000, 0, 0)" \
    "[(k['name'], k['launches'], k['grid_x'], k['grid_y'], k['grid_z'], k['block_x'], k['block_y'], k['block_z'], k['shared_bytes'], k['op']) for k in d['gpu']['kernels']] == [('vec_add', 10, 64, 1, 1, 256, 1, 1, 0, None), ('reduce', 3, 8, 4, 1, 32, 8, 1, 1024, 'train_step')]" \
    "[(s['kind'], s['calls']) for s in d['gpu']['syncs']] == [('stream', 2)]" \
    "d['gpu']['syncs'][0]['ns'] >= 40000000 and 20000000 <= d['gpu']['syncs'][0]['in_ops_ns'] < d['gpu']['syncs'][0]['ns']" \
    "ops['train_step']['wait_kinds'] == 'cuda_synchronize' and ops['train_step']['wait_ns'] >= 20000000" \
    "d['gpu']['method'] == \"CUDA driver API calls (libcuda), interposed: sizes, copies' bytes and launches exact; times are the host's\""
}

# as the runtime does: cuGetProcAddress_v2 from dlsym on the driver's handle
out=$(LD_LIBRARY_PATH="$WORK/lib" FAKECUDA_SYNC_MS=20 TPROF_OPS=train_step TPROF_JSON="$WORK/rt.json" \
      TPROF_OUTPUT="$WORK/rt.txt" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_cuda" runtime) ||
  fail "v_cuda runtime failed: $out"
[ "$out" = "sum 14" ] || fail "stdout changed: $out"
check "$WORK/rt.json" 0
# through the exported names, on device 1
out=$(LD_LIBRARY_PATH="$WORK/lib" FAKECUDA_SYNC_MS=20 FAKECUDA_DEVICE=1 TPROF_OPS=train_step \
      TPROF_JSON="$WORK/ln.json" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" \
      "$TB/victims/v_cuda_linked" linked) || fail "v_cuda_linked failed: $out"
[ "$out" = "sum 14" ] || fail "stdout changed (linked): $out"
check "$WORK/ln.json" 1
# cuBLAS's products by shape and type, with their FLOPs; the failed one is not counted
jcheck "$WORK/ln.json" \
  "[(x['function'], x['dtype'], x['transa'], x['transb'], x['m'], x['n'], x['k'], x['batch'], x['calls'], x['flops']) for x in d['gpu']['gemms']] == [('cublasSgemm_v2', 'f32', 'N', 'N', 512, 512, 512, 1, 10, 2684354560), ('cublasGemmEx', 'f16', 'T', 'N', 256, 128, 64, 1, 2, 8388608), ('cublasSgemmStridedBatched', 'f32', 'N', 'T', 64, 64, 64, 8, 1, 4194304)]" \
  "all(x['host_ns'] > 0 for x in d['gpu']['gemms']) and d['gpu']['gemms_untracked'] == 0" \
  "not any(o['name'].startswith('cublas') for o in d['ops'])"

# 60,000 allocations made and freed one at a time: all kept (never more than the table's live
# limit at once), the peak unchanged
LD_LIBRARY_PATH="$WORK/lib" TPROF_JSON="$WORK/ch.json" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_cuda" churn > /dev/null || fail "v_cuda churn failed"
jcheck "$WORK/ch.json" \
  "[(x['allocs'], x['frees'], x['peak_bytes'], x['live_at_exit_bytes']) for x in d['gpu']['devices']] == [(60004, 60002, 7864320, 3145728)]" \
  "d['gpu']['untracked_allocs'] == 0 and d['gpu']['unknown_frees'] == 0" \
  "[(s['allocs'], s['frees'], s['bytes']) for s in d['gpu']['sites'] if s['kind'] == 'async' and s['frames'][0]['function'] == 'churn'] == [(60000, 60000, 60000 * 4096)]"

# the text report's GPU section and the op's waiting sentence
tr -s ' \n' '  ' < "$WORK/rt.txt" > "$WORK/rt1.txt"
want() { grep -qE -- "$1" "$WORK/rt1.txt" || fail "text: no '$1' in: $(sed -n '/^GPU/,/^OUTPUTS/p' "$WORK/rt.txt")"; }
want "GPU \(CUDA driver calls\) -+ device 0: peak 7\.50 MiB at [0-9.]+ [mu]?s into the run; 3\.00 MiB in 2 allocations still allocated at exit \(of 4 made\)"
want "4\.00 MiB on device 0 \(device\): work \(v_cuda\.c:$B\) < runtime \(v_cuda\.c:[0-9]+\) < main \(v_cuda\.c:[0-9]+\)"
want "2\.00 MiB on device 0 \(managed\): work \(v_cuda\.c:$M\)"
want "512 KiB on device 0 \(async\): work \(v_cuda\.c:$S\)"
want "copies: to the device 1\.07 MiB in 3 calls \(1 asynchronous\), to the host 1\.00 MiB in 1 call, device to device 256 KiB in 1 call; the synchronous ones took [0-9.]+ [mu]?s of the host"
want "kernels: 13 launches of 2 kernels: vec_add 10 \(grid 64x1x1, block 256x1x1\), reduce 3 \(grid 8x4x1, block 32x8x1, 1024 B shared, from train_step\); their time on the device is not measured \(the host's calls only\)"
want "waiting: the host waited [0-9.]+ ms for the device \([0-9.]+% of the run\) in 2 synchronise calls \(stream\); [0-9.]+ ms of it inside ops"
want "memsets: 3\.91 KiB in 1 call"
# cuBLAS's line (the linked run's text)
LD_LIBRARY_PATH="$WORK/lib" TPROF_OUTPUT="$WORK/ln.txt" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_cuda_linked" linked \
  > /dev/null || fail "v_cuda_linked failed (text)"
tr -s ' \n' '  ' < "$WORK/ln.txt" | grep -qE "cuBLAS: cublasSgemm_v2 512x512x512 NN f32 x10 \(2\.68 GFLOP\), cublasGemmEx 256x128x64 TN f16 x2 \(0\.00839 GFLOP\), cublasSgemmStridedBatched 64x64x64 NT f32 batch 8 x1 \(0\.00419 GFLOP\); 2\.7 GFLOP in all, launched in [0-9.]+ [mun]?s of the host; their time on the device is not measured, so no GFLOP/s" ||
  fail "cuBLAS line: $(grep -A3 '^cuBLAS' "$WORK/ln.txt")"
want "Waiting: train_step: ~?[0-9.]+% of the thread time while it ran was the host waiting for the GPU, not work \(in CUDA synchronise calls: [0-9.]+ ms\): the device's work sets its pace \(the GPU section says what the device was given\)\."
grep -q "Fewer threads" "$WORK/rt.txt" && fail "thread-count advice for a wait on the device"
# tprof report reads the GPU figures back
"$T" report --format json "$WORK/rt.json" > "$WORK/back.json" || fail "tprof report failed"
jcheck "$WORK/back.json" "d['gpu']['kernels'][0]['name'] == 'vec_add' and d['gpu']['devices'][0]['peak_bytes'] == 7864320" \
  "d['gpu']['sites'][0]['frames'][0]['line'] == $B"

# the HTML page: the GPU tables hold the JSON's figures, and the page's script runs with them
# (headless Chromium; skipped without it)
LD_LIBRARY_PATH="$WORK/lib" TPROF_JSON="$WORK/h.json" TPROF_HTML="$WORK/g.html" TPROF_OUTPUT=none \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_cuda_linked" linked > /dev/null || fail "v_cuda_linked failed (html)"
for id in gpu-sites gpu-kernels gpu-gemms gpu-copies gpu-syncs; do
  grep -q "<table class=\"sortable\" id=\"$id\">" "$WORK/g.html" || fail "no $id table in the page"
done
grep -q '<p class="gpu-device">device 0: peak 7.50 MiB at ' "$WORK/g.html" || fail "no device line in the page"
grep -q '>vec_add</td><td data-v="10">10</td>' "$WORK/g.html" || fail "vec_add's row in the page"
grep -q '>cublasSgemm_v2</td><td data-v="134217728">512x512x512</td>' "$WORK/g.html" || fail "sgemm's row in the page"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then
  timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$WORK/chrome" --enable-logging=stderr --v=0 --dump-dom "file://$WORK/g.html" \
    > "$WORK/dom.html" 2> "$WORK/chrome.err" || fail "chromium --dump-dom failed: $(tail -3 "$WORK/chrome.err")"
  if grep 'CONSOLE' "$WORK/chrome.err"; then fail "the page wrote to the console"; fi
  python3 "$TS/htmlcheck.py" "$WORK/h.json" "$WORK/dom.html" || fail "the DOM does not hold the report"
else
  echo "SKIP (part): no chromium: the page was not opened"
fi

# no driver: the program's own failure, byte for byte, exit status included
V="$TB/victims/v_cuda"
"$V" runtime > "$WORK/n.out" 2> "$WORK/n.err"; echo $? > "$WORK/n.rc"
TPROF_OUTPUT="$WORK/nd.txt" TPROF_JSON="$WORK/nd.json" LD_PRELOAD="$TPROF_SO" "$V" runtime \
  > "$WORK/t.out" 2> "$WORK/t.err"; echo $? > "$WORK/t.rc"
[ "$(cat "$WORK/n.rc")" = 3 ] || fail "native exit status without a driver: $(cat "$WORK/n.rc")"
cmp -s "$WORK/n.out" "$WORK/t.out" && cmp -s "$WORK/n.err" "$WORK/t.err" && cmp -s "$WORK/n.rc" "$WORK/t.rc" ||
  fail "no driver: not as natively: $(cat "$WORK/t.err") rc $(cat "$WORK/t.rc")"
jcheck "$WORK/nd.json" "d['gpu']['used'] is False and d['gpu']['devices'] == [] and d['gpu']['method'] is None"
grep -q "^GPU" "$WORK/nd.txt" && fail "a GPU section without a driver call"
# is the driver there? asked of the global scope, where tprof's wrappers are: no, as natively
"$V" probe > "$WORK/p.out"; TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$V" probe > "$WORK/pt.out"
[ "$(cat "$WORK/p.out")" = "driver absent, loaded no" ] || fail "native probe: $(cat "$WORK/p.out")"
cmp -s "$WORK/p.out" "$WORK/pt.out" || fail "probe under tprof: $(cat "$WORK/pt.out")"
# with the driver loaded, the answer is the driver's (the wrapper in front of it)
LD_LIBRARY_PATH="$WORK/lib" "$TB/victims/v_cuda_linked" probe > "$WORK/p2.out"
LD_LIBRARY_PATH="$WORK/lib" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$TB/victims/v_cuda_linked" probe > "$WORK/p2t.out"
[ "$(cat "$WORK/p2.out")" = "driver present, loaded yes" ] || fail "native probe (linked): $(cat "$WORK/p2.out")"
cmp -s "$WORK/p2.out" "$WORK/p2t.out" || fail "probe under tprof (linked): $(cat "$WORK/p2t.out")"
exit 0
