#!/bin/sh
# examples/mlp under tprof: its stdout unchanged; every layer op called steps x layers times;
# the sgemm shapes, FLOPs and bytes those of a 784-1024-1024-10 MLP on batches of 64; the
# parameters (values, gradients, momenta) the persistent heap, the step's activations transient;
# the optimizer's FLOPs and bytes (annotation API) per parameter, memory-bound.
. "$TS/lib.sh"
X="$TB/../examples/mlp"
[ -x "$X" ] || { echo "SKIP: examples/mlp was not built (configure found no OpenBLAS)"; exit 77; }
S=3
native=$("$X" --steps $S) || fail "the native run failed"
out=$(tp TPROF_STEP=train_step TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$X" --steps $S) ||
  fail "the run under tprof failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
[ "$(printf '%s\n' "$native" | tail -n 1 | cut -d' ' -f1-2)" = "step $S" ] || fail "no loss line: $native"

# Every sgemm of one step: (m, n, k, transa, transb, beta != 0). Forward: x W^T + b (beta 1);
# backward: dW = dy^T x and dx = dy W (beta 0), no dx for the first layer.
E="[(64,1024,784,'N','T',1), (64,1024,1024,'N','T',1), (64,10,1024,'N','T',1),
    (10,1024,64,'T','N',0), (64,1024,10,'N','N',0), (1024,1024,64,'T','N',0),
    (64,1024,1024,'N','N',0), (1024,784,64,'T','N',0)]"
P=$(( (784 * 1024 + 1024) + (1024 * 1024 + 1024) + (1024 * 10 + 10) ))  # parameters
jcheck "$WORK/r.json" \
  "ops['dense_forward']['calls'] == 3 * $S and ops['dense_backward']['calls'] == 3 * $S" \
  "ops['relu_forward']['calls'] == 2 * $S and ops['relu_backward']['calls'] == 2 * $S" \
  "ops['softmax_forward']['calls'] == $S and ops['softmax_xent_backward']['calls'] == $S" \
  "ops['sgd_update']['calls'] == 6 * $S and ops['sgd_update']['kind'] == 'optimizer'" \
  "ops['sgd_update']['flops'] == 4 * $P * $S and ops['sgd_update']['bytes'] == 20 * $P * $S" \
  "ops['sgd_update']['bound'] == 'memory'" \
  "ops['cblas_sgemm']['calls'] == 8 * $S" \
  "sorted((s['m'], s['n'], s['k'], s['transa'], s['transb'], s['calls']) for s in ops['cblas_sgemm']['shapes']) == sorted((m, n, k, a, b, $S) for m, n, k, a, b, beta in $E)" \
  "ops['cblas_sgemm']['flops'] == $S * sum(2 * m * n * k for m, n, k, a, b, beta in $E)" \
  "ops['cblas_sgemm']['bytes'] == $S * sum(4 * (m * k + k * n + m * n * (2 if beta else 1)) for m, n, k, a, b, beta in $E)" \
  "all(ops[o]['source'] == 'instrumented' for o in ops if o != 'cblas_sgemm')" \
  "'train_step' not in ops and 'param_init' not in ops and 'dataset_batch' not in ops" \
  "d['steps']['count'] == $S and d['steps']['name'] == 'train_step'" \
  "d['verdict']['op'] == 'cblas_sgemm'" \
  "sum(s['live_at_peak_bytes'] for s in m['sites'] if any(f.get('function') == 'param_init' for f in s['frames'])) == 12 * $P" \
  "m['persistent_bytes'] >= 12 * $P + 4 * (10 * 784 + 64 * 784)" \
  "m['persistent_bytes'] <= 12 * $P + 4 * (10 * 784 + 64 * 784) + 65536" \
  "site('ex_alloc')['count'] > 0" \
  "sum(s['live_at_peak_bytes'] for s in m['sites'] if len(s['frames']) > 1 and s['frames'][1].get('function') == 'train_step') == 4 * (4 * 64 * 1024 + 2 * 64 * 10)" \
  "m['transient_bytes'] >= 4 * (4 * 64 * 1024 + 2 * 64 * 10)" \
  "m['peak_bytes'] == m['persistent_bytes'] + m['transient_bytes']"
# A bad argument: one line, status 2.
"$X" --steps zero > /dev/null 2> "$WORK/err" && fail "--steps zero was accepted"
[ $? -eq 2 ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] || fail "bad --steps: $(cat "$WORK/err")"
exit 0
