#!/bin/sh
# ggml's graph nodes as ops with their work (track/work/ggml.c), on a stand-in for ggml's CPU
# backend with ggml's tensor layout (tests/victims/tpggml.h): a graph of seven nodes (norm of x
# 64x8, two mul_mat of w 64x32 by it, add of b 32x8, soft_max, unary, and the out_prod of the
# add's 32x8 result by itself, 32x32 summed over 8) evaluated 10 times by
# ggml_graph_compute on two threads; each node function calls the export ggml_is_contiguous.
# With no settings: each node function an op of its kind, called 20 times a node, its work
# counted once a node (the ith 0 call): mul_mat 2*64*32*8 FLOPs and 1024 + 8192 + 2048 bytes a
# node, out_prod 2*32*32*8 and 4096 + 2 * 1024, norm 5, soft_max 5, add and unary 1 FLOP an
# element; its shapes; the step is each evaluation of the graph (each call of ggml_graph_compute,
# with its latency, in the text too), also when it runs inside another function (epoch: one
# ggml_opt_epoch call, as a training run's) and with one evaluation (of a bigger graph, whose
# mul_mat take most of the time, on 4 threads): never a node function, which runs outermost on
# each worker thread, repeats (on the workers one after the other) and encloses another op; a
# program's tprof_step() markers are its steps (marks); ggml_barrier, where the
# threads spin between nodes, is no op, and with the second thread held 200 ms in each
# evaluation (slow) the first one's spinning there is counted as waiting (wait_spin_ns, from
# CPU-time samples: 600 ms of spinning leaves no doubt that some land there); the output
# unchanged. With another layout (the op field moved): the same ops and calls, no work, and one
# note saying why. Also: names shown by their op in the text, the HTML and the verdict; the
# kernels a node's CPU samples land in (burn); ggml's backend buffers by usage (buffers).
. "$TS/lib.sh"
V="$TB/victims/v_ggml"
native=$("$V" 10) || fail "native run failed"
out=$(TPROF_OUTPUT="$WORK/g.txt" TPROF_JSON="$WORK/g.json" LD_PRELOAD="$TPROF_SO" "$V" 10 2> "$WORK/err") ||
  fail "victim failed: $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
p=ggml_compute_forward_
jcheck "$WORK/g.json" \
  "all(ops['$p' + n]['calls'] == 20 for n in ('norm', 'add', 'soft_max', 'unary', 'out_prod'))" \
  "ops['${p}out_prod']['kind'] == 'matmul' and ops['${p}out_prod']['flops'] == 10 * 2 * 32 * 32 * 8" \
  "ops['${p}out_prod']['bytes'] == 10 * (4096 + 2 * 1024)" \
  "[(s['m'], s['n'], s['k'], s['calls']) for s in ops['${p}out_prod']['shapes']] == [(32, 32, 8, 10)]" \
  "ops['${p}mul_mat']['calls'] == 40" \
  "[ops['$p' + n]['kind'] for n in ('norm', 'mul_mat', 'add', 'soft_max', 'unary')] == ['norm', 'matmul', 'elementwise', 'softmax', 'activation']" \
  "ops['${p}mul_mat']['flops'] == 20 * 2 * 64 * 32 * 8 and ops['${p}mul_mat']['bytes'] == 20 * (1024 + 8192 + 2048)" \
  "ops['${p}norm']['flops'] == 10 * 5 * 512 and ops['${p}norm']['bytes'] == 10 * (2048 + 2048)" \
  "ops['${p}add']['flops'] == 10 * 256 and ops['${p}add']['bytes'] == 10 * 3 * 1024" \
  "ops['${p}soft_max']['flops'] == 10 * 5 * 256 and ops['${p}soft_max']['bytes'] == 10 * 2 * 1024" \
  "ops['${p}unary']['flops'] == 10 * 256 and ops['${p}unary']['bytes'] == 10 * 2 * 1024" \
  "[(s['m'], s['n'], s['k'], s['calls'], s['flops']) for s in ops['${p}mul_mat']['shapes']] == [(32, 8, 64, 20, 20 * 32768)]" \
  "[(s['m'], s['n'], s['calls']) for s in ops['${p}norm']['shapes']] == [(64, 8, 10)]" \
  "[s['desc'] for s in ops['${p}mul_mat']['shapes']] == ['m=32 n=8 k=64 (f32, f32)']" \
  "[s['desc'] for s in ops['${p}norm']['shapes']] == ['m=64 n=8 (f32)']" \
  "not any(o['demoted'] for o in d['ops'])" \
  "not any(n.startswith('ggml:') for n in d['notes'])" \
  "d['memory']['lifetime_step'] == 'ggml_graph_compute' and d['memory']['lifetime_unit'] == 'ggml_graph'" \
  "d['steps']['name'] == 'ggml_graph_compute' and d['steps']['count'] == 10 and d['steps']['latency_ns']['n'] == 9" \
  "ops['ggml_graph_compute']['calls'] == 10" "'ggml_barrier' not in ops"
grep -q "^10 steps of ggml_graph_compute (an evaluation of a ggml graph each; TPROF_STEP names" "$WORK/g.txt" ||
  fail "no STEPS line for ggml's evaluations: $(grep -i step "$WORK/g.txt")"
grep -q "^step: ggml_graph_compute (an evaluation of a ggml graph)$" "$WORK/g.txt" ||
  fail "no step line for ggml's evaluations: $(grep -i step "$WORK/g.txt")"
# the short report's one line of steps
TPROF_DETAIL=short "$TPROF_CLI" report "$WORK/g.json" > "$WORK/gs.txt" || fail "tprof report (short) failed"
tr '\n' ' ' < "$WORK/gs.txt" | tr -s ' ' |
  grep -Eq "STEPS: 10 of ggml_graph_compute \(ggml graph evaluations\): latency p50 [0-9.]+ [mun]?s, p95 [0-9.]+ [mun]?s \(warm-up left out\)" ||
  fail "no short steps line: $(grep -A1 '^STEPS' "$WORK/gs.txt")"
# The text's tables show a node by its op, with one legend line; the JSON keeps the full names.
# (The kind column is there when no ops overlapped in time, wall% in its place otherwise.)
ops_rows=$(sed -n '/^OPS /,/^$/p' "$WORK/g.txt")
for n in mul_mat out_prod norm add soft_max unary; do
  echo "$ops_rows" | grep -Eq "^$n +([a-z]+ +)?[0-9]" || fail "no OPS row for $n: $ops_rows"
done
echo "$ops_rows" | grep -q "^ggml_compute_forward_" && fail "a node's full name in the OPS table: $ops_rows"
echo "$ops_rows" | tr '\n' ' ' | grep -q "mul_mat, add, \.\.\.: ggml's graph nodes by their op: the functions *ggml_compute_forward_<op> (their *names in the JSON report)\." ||
  fail "no legend for the short names: $ops_rows"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/e.json" LD_PRELOAD="$TPROF_SO" "$V" 10 epoch 2> "$WORK/err") ||
  fail "victim failed (epoch): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (epoch): $out vs $native"
jcheck "$WORK/e.json" "ops['ggml_opt_epoch']['calls'] == 1" \
  "d['steps']['name'] == 'ggml_graph_compute' and d['steps']['count'] == 10" \
  "d['memory']['lifetime_unit'] == 'ggml_graph'"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/k.json" LD_PRELOAD="$TPROF_SO" "$V" 10 marks 2> "$WORK/err") ||
  fail "victim failed (marks): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (marks): $out vs $native"
jcheck "$WORK/k.json" "d['steps']['name'] == 'tprof_step' and d['steps']['count'] == 10" \
  "d['memory']['lifetime_unit'] == 'step_marker'"
out=$(TPROF_SAMPLE_HZ=1000 TPROF_OUTPUT=none TPROF_JSON="$WORK/slow.json" LD_PRELOAD="$TPROF_SO" "$V" 3 slow 2> "$WORK/err") ||
  fail "victim failed (slow): $(cat "$WORK/err")"
[ "$out" = "$("$V" 3)" ] || fail "stdout changed (slow): $out"
jcheck "$WORK/slow.json" "'ggml_barrier' not in ops" "sum(o['wait_spin_ns'] for o in d['ops']) > 0"
out=$(TPROF_OUTPUT=none TPROF_HTML="$WORK/one.html" TPROF_JSON="$WORK/one.json" LD_PRELOAD="$TPROF_SO" "$V" 1 big 2> "$WORK/err") ||
  fail "victim failed (one evaluation): $(cat "$WORK/err")"
jcheck "$WORK/one.json" "ops['${p}mul_mat']['calls'] == 8" \
  "ops['${p}mul_mat']['flops'] == 2 * 2 * 512 * 256 * 64" \
  "d['memory']['lifetime_step'] == 'ggml_graph_compute' and d['steps']['count'] == 1"
# The verdict names a node by its op: with only the node functions as ops, one of them is its op.
TPROF_OPS='ggml_compute_forward_*' TPROF_OUTPUT=none TPROF_JSON="$WORK/n.json" LD_PRELOAD="$TPROF_SO" "$V" 10 > /dev/null 2> "$WORK/err" ||
  fail "victim failed (node ops only): $(cat "$WORK/err")"
jcheck "$WORK/n.json" "d['verdict']['op'].startswith('$p')" \
  "re.match(r\"ggml's (\\w+) takes <?\\d+% of the time\", d['verdict']['text']).group(1) == d['verdict']['op'][len('$p'):]" \
  "('a 2x faster ' + d['verdict']['op'][len('$p'):] + ' makes the program') in d['verdict']['text']"
# Inside long ops: mul_mat's CPU samples name its kernel (a function of the symbol table only),
# in the JSON, most samples first, and in a line under its row (with ggml_barrier, where the
# other thread spins for it, as the load decides); 3 evaluations x 2 nodes x 2 threads x 25 ms
# of CPU time at 1000 samples a second leave no doubt that samples land there.
out=$(TPROF_SAMPLE_HZ=1000 TPROF_OUTPUT="$WORK/kb.txt" TPROF_JSON="$WORK/kb.json" LD_PRELOAD="$TPROF_SO" "$V" 3 burn 2> "$WORK/err") ||
  fail "victim failed (burn): $(cat "$WORK/err")"
[ "$out" = "$("$V" 3)" ] || fail "stdout changed (burn): $out"
jcheck "$WORK/kb.json" "'ggml_vec_dot_burn' in [k['name'] for k in ops['${p}mul_mat']['kernels']]" \
  "all(k['samples'] > 0 and 0 < k['share'] <= 1 for k in ops['${p}mul_mat']['kernels'])" \
  "ops['${p}mul_mat']['kernels'] == sorted(ops['${p}mul_mat']['kernels'], key=lambda k: -k['samples'])" \
  "sum(k['samples'] for o in d['ops'] for k in o.get('kernels', [])) <= d['samples']['in_ops']"
grep -Eq "^  in: (.*, )?ggml_vec_dot_burn [0-9]+%.* \([0-9]+ CPU samples\)$" "$WORK/kb.txt" ||
  fail "no kernels line under mul_mat: $(sed -n '/^OPS/,/^$/p' "$WORK/kb.txt")"
# ggml's backend buffers by usage: exact sizes, which were live at the heap's peak, the line.
out=$(TPROF_OUTPUT="$WORK/b.txt" TPROF_JSON="$WORK/b.json" LD_PRELOAD="$TPROF_SO" "$V" 3 buffers 2> "$WORK/err") ||
  fail "victim failed (buffers): $(cat "$WORK/err")"
[ "$out" = "$("$V" 3)" ] || fail "stdout changed (buffers): $out"
jcheck "$WORK/b.json" \
  "[(g['name'], g['usage'], g['bytes'], g['at_peak'], g['free_ns'] >= 0) for g in d['memory']['ggml_buffers']] == [('CPU', 'weights', 1 << 20, True, False), ('CPU', 'any', 512 << 10, True, False), ('CPU', 'compute', 2 << 20, True, True), ('CPU', 'compute', 256 << 10, False, False)]" \
  "all(g['alloc_ns'] <= d['memory']['peak_ns'] for g in d['memory']['ggml_buffers'][:3])"
tr '\n' ' ' < "$WORK/b.txt" | grep -q "ggml backend buffers at the peak: 3.50 MiB in 3 (weights 1.00 MiB, compute 2.00 MiB, other 512 KiB; *buffer type CPU)" ||
  fail "no line of ggml's buffers: $(grep -i ggml "$WORK/b.txt")"
jcheck "$WORK/g.json" "'ggml_buffers' not in d['memory']"
# more buffers than the 1024 kept one by one: the rest counted in a note
TPROF_OUTPUT=none TPROF_JSON="$WORK/mb.json" LD_PRELOAD="$TPROF_SO" "$V" 3 manybuf > /dev/null 2> "$WORK/err" ||
  fail "victim failed (manybuf): $(cat "$WORK/err")"
jcheck "$WORK/mb.json" "len(d['memory']['ggml_buffers']) == 1024" \
  "[n for n in d['notes'] if n.startswith('ggml:')] == ['ggml: 6 backend buffers past the first 1024 are not in memory.ggml_buffers']"
# The buffers' heap blocks come from ggml_aligned_malloc, an allocator wrapper the buffer
# allocation calls through the library's PLT: their call sites reach main's lines, whether the
# wrapper is an op (its call through tprof's stub) or not (allocators are no default ops).
lines=$(grep -n "= ggml_backend_buft_alloc_buffer(" "$TS/victims/v_ggml.c" | cut -d: -f1 | tr '\n' ',')
want="sorted([(s['frames'][1]['function'], s['frames'][2]['function'], s['frames'][2]['line']) for s in m['sites'] if s['frames'] and s['frames'][0]['function'] == 'ggml_aligned_malloc']) == sorted(('ggml_backend_buft_alloc_buffer', 'main', l) for l in ($lines))"
jcheck "$WORK/b.json" "'ggml_aligned_malloc' not in ops" "$want"
out=$(TPROF_OPS='ggml_aligned_malloc,ggml_backend_buft_alloc_buffer' TPROF_OUTPUT=none TPROF_JSON="$WORK/bw.json" LD_PRELOAD="$TPROF_SO" "$V" 3 buffers 2> "$WORK/err") ||
  fail "victim failed (wrapper as an op): $(cat "$WORK/err")"
jcheck "$WORK/bw.json" "ops['ggml_aligned_malloc']['calls'] == 4 and ops['ggml_aligned_malloc']['source'] == 'plt'" "$want"
grep -q '<td class="l" title="ggml_compute_forward_mul_mat">mul_mat</td>' "$WORK/one.html" ||
  fail "no mul_mat row with its full name on hover in the HTML"

# A ggml built with -finstrument-functions: its node functions are instrumented ops of their kind,
# without work, and a note says that a plain build needs nothing more.
V="$TB/victims/v_ggml_instr"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/i.json" LD_PRELOAD="$TPROF_SO" "$V" 10 2> "$WORK/err") ||
  fail "victim failed (instrumented): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (instrumented): $out vs $native"
jcheck "$WORK/i.json" "ops['${p}mul_mat']['source'] == 'instrumented' and ops['${p}mul_mat']['kind'] == 'matmul'" \
  "ops['${p}mul_mat']['calls'] == 40 and ops['${p}mul_mat']['flops'] == 0" \
  "[n for n in d['notes'] if n.startswith('ggml:')] == ['ggml: its graph-node functions (${p}<op>) were built with -finstrument-functions: they are timed by its hooks, without FLOPs, bytes or shapes, and every instrumented function of ggml pays for the hooks; built without the flag, ggml is seen as it is: each node through the library\\'s PLT with its FLOPs, bytes and shapes, with no rebuild for tprof']"
jcheck "$WORK/g.json" "not any(n.startswith('ggml:') for n in d['notes'])"

V="$TB/victims/v_ggml_other"
native=$("$V" 10) || fail "native run failed (other layout)"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/o.json" LD_PRELOAD="$TPROF_SO" "$V" 10 2> "$WORK/err") ||
  fail "victim failed (other layout): $(cat "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed (other layout): $out vs $native"
jcheck "$WORK/o.json" \
  "all(ops['$p' + n]['calls'] == (40 if n == 'mul_mat' else 20) and ops['$p' + n]['flops'] == 0 and not ops['$p' + n]['shapes'] for n in ('norm', 'mul_mat', 'add', 'soft_max', 'unary'))" \
  "ops['${p}mul_mat']['kind'] == 'matmul'" \
  "[n for n in d['notes'] if n.startswith('ggml:')] == ['ggml: the node of ${p}norm is not laid out as tprof reads ggml\\'s tensors; its node ops are timed and counted without FLOPs, bytes or shapes (tprof reads the layout ggml has had since mid-2024)']"
exit 0
