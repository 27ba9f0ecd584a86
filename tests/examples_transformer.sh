#!/bin/sh
# examples/transformer under tprof: stdout unchanged; every layer op called steps x layers times
# and softmax once per sequence and head; the sgemm shapes, FLOPs and bytes of the block; Adam's
# parameters (values, gradients, two moments) the persistent heap; and, at the default sequence
# length, attention (built for it) takes more time than any other layer and its n x n
# probabilities are the largest buffer of the step.
. "$TS/lib.sh"
# One BLAS thread: which op dominates is a matter of time, and a busy machine slows a thread pool
# far more than one thread (the figures asserted exactly do not depend on it).
export OPENBLAS_NUM_THREADS=1
X="$TB/../examples/transformer"
[ -x "$X" ] || { echo "SKIP: examples/transformer was not built (configure found no OpenBLAS)"; exit 77; }
S=2 B=2 H=2 N=64
R=$((B * N))  # rows: positions of all sequences
P=$(( 4 * 64 + 64 * 192 + 192 + 64 * 64 + 64 + 64 * 256 + 256 + 256 * 64 + 64 ))  # parameters
native=$("$X" --steps $S --seq $N) || fail "the native run failed"
out=$(tp TPROF_STEP=train_step TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$X" --steps $S --seq=$N) ||
  fail "the run under tprof failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"

# The sgemms of one step, (m, n, k, transa, transb, beta != 0, calls): the four dense layers
# forward, their weight and input gradients, then per sequence and head the scores and the
# weighted sum forward, dv, dp, dq and dk backward (shapes repeat: forward and backward share).
E="[($R,192,64,'N','T',1,1), ($R,64,64,'N','T',1,1), ($R,256,64,'N','T',1,1), ($R,64,256,'N','T',1,1),
    (64,256,$R,'T','N',0,1), ($R,256,64,'N','N',0,1), (256,64,$R,'T','N',0,1), ($R,64,256,'N','N',0,1),
    (64,64,$R,'T','N',0,1), ($R,64,64,'N','N',0,1), (192,64,$R,'T','N',0,1), ($R,64,192,'N','N',0,1),
    ($N,$N,32,'N','T',0,2*$B*$H), ($N,32,$N,'N','N',0,2*$B*$H), ($N,32,$N,'T','N',0,2*$B*$H)]"
jcheck "$WORK/r.json" \
  "ops['attention_forward']['calls'] == $S and ops['attention_backward']['calls'] == $S" \
  "ops['attention_forward']['kind'] == 'attention'" \
  "ops['softmax_forward']['calls'] == $B * $H * $S and ops['softmax_backward']['calls'] == $B * $H * $S" \
  "ops['layernorm_forward']['calls'] == 2 * $S and ops['layernorm_backward']['calls'] == 2 * $S" \
  "ops['layernorm_forward']['kind'] == 'norm' and ops['gelu_forward']['kind'] == 'activation'" \
  "ops['dense_forward']['calls'] == 4 * $S and ops['dense_backward']['calls'] == 4 * $S" \
  "ops['gelu_forward']['calls'] == $S and ops['gelu_backward']['calls'] == $S" \
  "ops['mse_loss_backward']['calls'] == $S and ops['adam_update']['calls'] == 12 * $S" \
  "ops['adam_update']['flops'] == 12 * $P * $S and ops['adam_update']['bytes'] == 28 * $P * $S" \
  "ops['cblas_sgemm']['calls'] == (6 * $B * $H + 12) * $S" \
  "sorted((s['m'], s['n'], s['k'], s['transa'], s['transb'], s['calls']) for s in ops['cblas_sgemm']['shapes']) == sorted((m, n, k, a, b, c * $S) for m, n, k, a, b, beta, c in $E)" \
  "ops['cblas_sgemm']['flops'] == $S * sum(2 * m * n * k * c for m, n, k, a, b, beta, c in $E)" \
  "ops['cblas_sgemm']['bytes'] == $S * sum(4 * c * (m * k + k * n + m * n * (2 if beta else 1)) for m, n, k, a, b, beta, c in $E)" \
  "'fast_tanh' not in ops and 'make_batch' not in ops and 'train_step' not in ops" \
  "d['steps']['count'] == $S" \
  "sum(s['live_at_peak_bytes'] for s in m['sites'] if any(f.get('function') == 'param_init' for f in s['frames'])) == 16 * $P" \
  "m['persistent_bytes'] >= 16 * $P + 2 * 4 * $R * 64" \
  "m['persistent_bytes'] <= 16 * $P + 2 * 4 * $R * 64 + 65536" \
  "m['transient_bytes'] >= 4 * (15 * $R * 64 + 3 * $R * 256 + 4 * $R + $B * $H * $N * $N)"

# The default length (512): attention is built to dominate, in time and in the step's memory.
N=512
native=$("$X" --steps $S) || fail "the native run failed (default length)"
out=$(tp TPROF_STEP=train_step TPROF_JSON="$WORK/d.json" LD_PRELOAD="$TPROF_SO" "$X" --steps $S) ||
  fail "the run under tprof failed (default length)"
[ "$out" = "$native" ] || fail "stdout changed (default length): $out vs $native"
attn="ops['attention_forward']['total_ns'] + ops['attention_backward']['total_ns']"
jcheck "$WORK/d.json" \
  "$attn > ops['dense_forward']['total_ns'] + ops['dense_backward']['total_ns']" \
  "all($attn > o['total_ns'] for o in d['ops'] if o['kind'] != 'matmul' and not o['name'].startswith('attention'))" \
  "max(s['peak_live_bytes'] for s in m['sites'] if len(s['frames']) > 1 and s['frames'][1].get('function') == 'train_step') == 4 * $B * $H * $N * $N" \
  "max(s['peak_live_bytes'] for s in m['sites'] if len(s['frames']) > 1 and s['frames'][1].get('function') == 'attention_backward') == 4 * $N * $N"
"$X" --seq 0 > /dev/null 2> "$WORK/err" && fail "--seq 0 was accepted"
[ $? -eq 2 ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] || fail "bad --seq: $(cat "$WORK/err")"
exit 0
