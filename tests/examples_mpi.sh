#!/bin/sh
# examples/mpi_mlp under `mpirun -np 2`, every rank under `tprof run`: rank 0's stdout unchanged and
# the parameters the same on both ranks; one report per rank (TPROF_JSON=out.%r.json) with its
# rank; each rank's ops called steps x layers times and its sgemm shapes, calls and FLOPs those of
# its own shard (rank r: (r + 1) x 32 rows, so rank 1 does twice rank 0's FLOPs); `tprof merge` of
# the two sums them and gives per op min / mean / max of the ranks' total times and the imbalance
# max / mean, exactly as computed from the two reports, and `tprof report` prints that table.
. "$TS/lib.sh"
X="$TB/../examples/mpi_mlp"
[ -x "$X" ] || {
  echo "SKIP: examples/mpi_mlp was not built (configure found no OpenBLAS or no Open MPI)"; exit 77; }
command -v mpirun > /dev/null 2>&1 || { echo "SKIP: no mpirun (apt-get install openmpi-bin)"; exit 77; }
# Open MPI refuses root without these two; oversubscribe: 2 ranks also on a 1-core machine; one
# host, shared memory only (plm isolated: no ssh; btl self,vader and pml ob1: no network or
# InfiniBand probing, MPI_Init in 0.2 s instead of 0.4); yield: a rank waiting in the allreduce
# gives its core away instead of spinning (the test machine may be busy).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
  OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_mpi_yield_when_idle=1
mpi() { timeout 120 mpirun -np 2 "$@"; }
if ! mpi true > "$WORK/true.out" 2>&1; then
  echo "SKIP: mpirun -np 2 true fails here: $(grep -m 1 . "$WORK/true.out")"; exit 77
fi

S=4
native=$(mpi "$X" --steps $S) || fail "the native run failed"
out=$(cd "$WORK" && mpi "$TPROF_CLI" run --lib "$TPROF_SO" --output none --json 'out.%r.json' \
  --step train_step --peak-gflops 100 --peak-gbps 10 -- "$X" --steps $S) ||
  fail "the run under tprof failed"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
# Both ranks end with the same loss and the same parameter bytes.
l0=$(printf '%s\n' "$native" | grep '^rank 0 of 2: 32 rows of 96, final loss' | cut -d, -f2-)
l1=$(printf '%s\n' "$native" | grep '^rank 1 of 2: 64 rows of 96, final loss' | cut -d, -f2-)
[ -n "$l0" ] && [ "$l0" = "$l1" ] || fail "the ranks differ: $native"
[ "$(cd "$WORK" && ls out.*.json | tr '\n' ' ')" = "out.0.json out.1.json " ] ||
  fail "expected out.0.json out.1.json, found: $(ls "$WORK")"

W=$(( 784 * 1024 + 1024 * 1024 + 1024 * 10 ))  # weights: forward and dW sgemms, 2 R W FLOPs each
P=$(( W + 1024 + 1024 + 10 ))                   # parameters (with the biases)
for r in 0 1; do
  R=$(( 32 * (r + 1) ))
  # Every sgemm of one step (m, n, k, transa, transb, beta != 0), as in examples_mlp.sh with
  # this rank's R rows.
  E="[($R,1024,784,'N','T',1), ($R,1024,1024,'N','T',1), ($R,10,1024,'N','T',1),
      (10,1024,$R,'T','N',0), ($R,1024,10,'N','N',0), (1024,1024,$R,'T','N',0),
      ($R,1024,1024,'N','N',0), (1024,784,$R,'T','N',0)]"
  # Last: the parameters (values, gradients, momenta) live at the peak, all but the output
  # layer's 10 biases: Open MPI makes some 15000 call sites and the JSON keeps the 1000 largest.
  jcheck "$WORK/out.$r.json" \
    "d['program']['rank'] == $r and d['program']['argv'][-2:] == ['--steps', '$S']" \
    "d['steps']['count'] == $S and d['steps']['name'] == 'train_step'" \
    "ops['dense_forward']['calls'] == 3 * $S and ops['dense_backward']['calls'] == 3 * $S" \
    "ops['relu_forward']['calls'] == 2 * $S and ops['softmax_xent_backward']['calls'] == $S" \
    "ops['allreduce_gradients']['calls'] == $S and ops['allreduce_gradients']['source'] == 'api'" \
    "ops['sgd_update']['calls'] == 6 * $S and ops['sgd_update']['flops'] == 4 * $P * $S" \
    "ops['cblas_sgemm']['calls'] == 8 * $S" \
    "sorted((s['m'], s['n'], s['k'], s['transa'], s['transb'], s['calls']) for s in ops['cblas_sgemm']['shapes']) == sorted((m, n, k, a, b, $S) for m, n, k, a, b, beta in $E)" \
    "ops['cblas_sgemm']['flops'] == $S * sum(2 * m * n * k for m, n, k, a, b, beta in $E)" \
    "ops['cblas_sgemm']['flops'] == $S * 2 * $R * (2 * $W + 1024 * 1024 + 1024 * 10)" \
    "sum(s['live_at_peak_bytes'] for s in m['sites'] if s['bytes'] >= 4096 and any(f.get('function') == 'param_init' for f in s['frames'])) == 12 * ($P - 10)" \
    "m['persistent_bytes'] >= 12 * $P"
done

"$TPROF_CLI" merge "$WORK/out.0.json" "$WORK/out.1.json" -o "$WORK/all.json" || fail "merge failed"
python3 - "$WORK/out.0.json" "$WORK/out.1.json" "$WORK/all.json" <<'EOF' || fail "merged figures"
import json, sys
r0, r1, a = (json.load(open(p)) for p in sys.argv[1:])
ops = [{o['name']: o for o in r['ops']} for r in (r0, r1)]
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: {got!r}, expected {want!r}")
check('merged_processes', a['merged_processes'], 2)
names = sorted(set(ops[0]) | set(ops[1]))
check('op names', sorted(o['name'] for o in a['ops']), names)
for o in a['ops']:
    n = o['name']
    t = [ops[i][n]['total_ns'] if n in ops[i] else 0 for i in (0, 1)]
    for k in ('calls', 'total_ns', 'self_ns', 'flops', 'bytes'):
        check(f'{n} {k}', o[k], sum(ops[i][n][k] for i in (0, 1) if n in ops[i]))
    check(f'{n} nprocs', o['nprocs'], 2)
    check(f'{n} proc_min_ns', o['proc_min_ns'], min(t))
    check(f'{n} proc_max_ns', o['proc_max_ns'], max(t))
    check(f'{n} proc_mean_ns', o['proc_mean_ns'], sum(t) / 2)
    check(f'{n} imbalance', o['imbalance'], max(t) / (sum(t) / 2) if sum(t) else 0)
# The imbalance by construction: rank 1's sgemms do exactly twice rank 0's FLOPs.
check('sgemm FLOPs rank 1 / rank 0', ops[1]['cblas_sgemm']['flops'], 2 * ops[0]['cblas_sgemm']['flops'])
if bad:
    print('\n'.join(bad))
sys.exit(1 if bad else 0)
EOF

# The text report of the merge: the per-process table, with the JSON's figures.
"$TPROF_CLI" report "$WORK/all.json" --top 50 > "$WORK/all.txt" || fail "report of the merge failed"
grep -q '^per process (total time) *procs *min *mean *max *imbalance$' "$WORK/all.txt" ||
  fail "no per-process table: $(cat "$WORK/all.txt")"
for op in cblas_sgemm allreduce_gradients dense_forward; do
  want=$(python3 -c "import json,sys; o={o['name']: o for o in json.load(open(sys.argv[1]))['ops']}[sys.argv[2]]; print('%.2fx' % o['imbalance'])" "$WORK/all.json" $op)
  row=$(sed -n '/^per process (total time)/,/^$/p' "$WORK/all.txt" | grep "^$op ")
  [ "$(echo $row | cut -d' ' -f2)" = 2 ] && [ "${row##* }" = "$want" ] ||
    fail "per-process row of $op: '$row', expected 2 processes and imbalance $want"
done
exit 0
