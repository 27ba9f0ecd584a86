#!/bin/sh
# examples/cnn under tprof, with each convolution: stdout unchanged; layer ops called steps x
# layers times, im2col_cpu/col2im_cpu and the sgemms once per image; the sgemm shapes, FLOPs and
# bytes of the network; the direct convolution's FLOPs (annotation API) those of the im2col
# sgemms; the direct convolution dominates when chosen; parameters are the persistent heap.
. "$TS/lib.sh"
# One BLAS thread: which op dominates is a matter of time, and a busy machine slows a thread pool
# far more than one thread (the figures asserted exactly do not depend on it).
export OPENBLAS_NUM_THREADS=1
X="$TB/../examples/cnn"
[ -x "$X" ] || { echo "SKIP: examples/cnn was not built (configure found no OpenBLAS)"; exit 77; }
S=2 B=32
P=$(( 16 * 27 + 16 + 32 * 144 + 32 + 2048 * 10 + 10 ))  # parameters
# The sgemms of one step, (m, n, k, transa, transb, beta != 0, calls). Per image: the forward
# convolutions (im2col only), the filter gradients of both layers, the input gradient of the
# second; per step: the dense layer forward, its weight and its input gradient.
FWD="[(16,1024,27,'N','N',1,$B), (32,256,144,'N','N',1,$B)]"
BWD="[(32,144,256,'N','T',1,$B), (144,256,32,'T','N',0,$B), (16,27,1024,'N','T',1,$B),
      (32,10,2048,'N','T',1,1), (10,2048,32,'T','N',0,1), (32,2048,10,'N','N',0,1)]"
shapes="sorted((s['m'], s['n'], s['k'], s['transa'], s['transb'], s['calls']) for s in ops['cblas_sgemm']['shapes'])"
CONV_FLOPS="2 * $B * (16 * 1024 * 27 + 32 * 256 * 144)"

for conv in im2col direct; do
  native=$("$X" --steps $S --conv $conv) || fail "the native run failed (--conv $conv)"
  out=$(tp TPROF_STEP=train_step TPROF_JSON="$WORK/$conv.json" LD_PRELOAD="$TPROF_SO" \
        "$X" --steps $S --conv=$conv) || fail "the run under tprof failed (--conv $conv)"
  [ "$out" = "$native" ] || fail "stdout changed (--conv $conv): $out vs $native"
  if [ $conv = im2col ]; then E="$FWD + $BWD"; else E="$BWD"; fi
  jcheck "$WORK/$conv.json" \
    "ops['conv_forward']['calls'] == 2 * $S and ops['conv2d_backward']['calls'] == 2 * $S" \
    "ops['relu_forward']['calls'] == 2 * $S and ops['relu_backward']['calls'] == 2 * $S" \
    "ops['maxpool_forward']['calls'] == 2 * $S and ops['maxpool_backward']['calls'] == 2 * $S" \
    "ops['maxpool_forward']['kind'] == 'pool' and ops['conv2d_backward']['kind'] == 'conv'" \
    "ops['dense_forward']['calls'] == $S and ops['dense_backward']['calls'] == $S" \
    "ops['softmax_forward']['calls'] == $S and ops['softmax_xent_backward']['calls'] == $S" \
    "ops['sgd_update']['calls'] == 6 * $S and ops['sgd_update']['flops'] == 4 * $P * $S" \
    "ops['col2im_cpu']['calls'] == $B * $S" \
    "$shapes == sorted((m, n, k, a, b, c * $S) for m, n, k, a, b, beta, c in $E)" \
    "ops['cblas_sgemm']['flops'] == $S * sum(2 * m * n * k * c for m, n, k, a, b, beta, c in $E)" \
    "ops['cblas_sgemm']['bytes'] == $S * sum(4 * c * (m * k + k * n + m * n * (2 if beta else 1)) for m, n, k, a, b, beta, c in $E)" \
    "'filters_init' not in ops and 'train_step' not in ops" \
    "d['steps']['count'] == $S" \
    "sum(s['live_at_peak_bytes'] for s in m['sites'] if any(f.get('function') == 'param_init' for f in s['frames'])) == 12 * $P" \
    "m['persistent_bytes'] >= 12 * $P + 4 * (10 + $B) * 3072" \
    "m['persistent_bytes'] <= 12 * $P + 4 * (10 + $B) * 3072 + 65536" \
    "m['transient_bytes'] >= 4 * $B * (2 * 16 * 1024 + 2 * 32 * 256 + 10 * 2) + 4 * $B * (16 * 256 + 32 * 64) * 3"
done
# im2col: one im2col_cpu per image in each forward and each backward convolution
jcheck "$WORK/im2col.json" \
  "ops['conv2d_im2col_forward']['calls'] == 2 * $S and 'conv2d_direct_forward' not in ops" \
  "ops['im2col_cpu']['calls'] == 4 * $B * $S and ops['im2col_cpu']['kind'] == 'conv'" \
  "ops['conv2d_im2col_forward']['flops'] == 0" \
  "ops['conv_forward']['total_ns'] >= ops['conv2d_im2col_forward']['total_ns']"
# direct: the same multiply-adds, reported through the annotation API; built to dominate
jcheck "$WORK/direct.json" \
  "ops['conv2d_direct_forward']['calls'] == 2 * $S and 'conv2d_im2col_forward' not in ops" \
  "ops['im2col_cpu']['calls'] == 2 * $B * $S" \
  "ops['conv2d_direct_forward']['flops'] == $S * $CONV_FLOPS" \
  "ops['conv2d_direct_forward']['bytes'] == $S * 4 * ($B * (3 + 16) * 1024 + $B * (16 + 32) * 256 + 16 * 27 + 16 + 32 * 144 + 32)" \
  "ops['conv2d_direct_forward']['bound'] in ('compute', 'memory')" \
  "d['verdict']['op'] == 'conv2d_direct_forward'"
"$X" --conv winograd > /dev/null 2> "$WORK/err" && fail "--conv winograd was accepted"
[ $? -eq 2 ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] || fail "bad --conv: $(cat "$WORK/err")"
exit 0
