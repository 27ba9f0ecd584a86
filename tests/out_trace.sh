#!/bin/sh
# TPROF_TRACE and TPROF_FOLDED on a two-thread training loop (tests/victims/v_trace.c): the trace
# parses, holds every op call as a well-formed complete event nested as the calls were, names
# both threads and carries the heap peak; past TPROF_TRACE_CAP and past TPROF_TRACE_MAX the calls
# are summarised per op and the report says so; the folded stacks add up to the report's figures.
. "$TS/lib.sh"
V=$TB/victims/v_trace
OPS='*matmul*,*forward*,*conv*'
native=$("$V" 20 1) || fail "native run failed"
out=$(tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/r.json" TPROF_TRACE="$WORK/t.json" \
      TPROF_FOLDED="$WORK/f.folded" TPROF_OUTPUT="$WORK/r.txt" LD_PRELOAD="$TPROF_SO" "$V" 20 1) || fail "victim failed"
[ "$out" = "$native" ] || fail "stdout changed: $out"
# step k calls small_matmul k+1 times: 210 in 20 steps, and 10 more under conv_layer
jcheck "$WORK/r.json" "ops['layer_forward']['calls'] == 20" "ops['small_matmul']['calls'] == 220" \
  "ops['conv_layer']['calls'] == 10" "d['outputs']['trace_events'] == 250" \
  "d['outputs']['trace_past_cap'] == 0 and d['outputs']['trace_past_max'] == 0" \
  "d['outputs']['folded_time'].endswith('/f.folded')" \
  "d['outputs']['folded_heap'].endswith('/f.heap.folded')" \
  "sorted(';'.join(s['ops']) for s in d['op_stacks']) == ['conv_layer', 'conv_layer;small_matmul', 'layer_forward', 'layer_forward;small_matmul']" \
  "[s['calls'] for s in d['op_stacks'] if s['ops'] == ['layer_forward', 'small_matmul']] == [210]"
python3 "$TS/tracecheck.py" "$WORK/r.json" trace "$WORK/t.json" --names trainer,loader || fail "trace"
# The 1 MiB activation of the step running at the peak and the three 64 KiB parameter blocks.
python3 "$TS/tracecheck.py" "$WORK/r.json" folded "$WORK/f.folded" "$WORK/f.heap.folded" \
  "heap:main;train_step=1048576" "heap:main=196608" || fail "folded"
# tprof report renders the same folded lines from the JSON report.
"$TPROF_CLI" report "$WORK/r.json" --format folded > "$WORK/cli.folded" || fail "tprof report --format folded"
"$TPROF_CLI" report "$WORK/r.json" --format folded-heap > "$WORK/cli.heap" || fail "tprof report --format folded-heap"
cmp -s "$WORK/cli.folded" "$WORK/f.folded" || fail "tprof report --format folded differs from TPROF_FOLDED's file"
cmp -s "$WORK/cli.heap" "$WORK/f.heap.folded" || fail "tprof report --format folded-heap differs"
# tprof merge adds the op stacks of the processes path by path.
cp "$WORK/r.json" "$WORK/r2.json"
"$TPROF_CLI" merge "$WORK/r.json" "$WORK/r2.json" -o "$WORK/merged.json" || fail "tprof merge"
jcheck "$WORK/merged.json" "len(d['op_stacks']) == 4" \
  "[s['calls'] for s in d['op_stacks'] if s['ops'] == ['layer_forward', 'small_matmul']] == [420]"
grep -q '^trace: .*/t.json (.*): 250 op calls drawn one by one' "$WORK/r.txt" || fail "text report: no trace line"
grep -q '^op-time flame graph: .*/f.folded' "$WORK/r.txt" || fail "text report: no folded line"
# The report with op_stacks and outputs filled validates against the schema.
if python3 -c 'import jsonschema' 2> /dev/null; then
  python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
    "$TS/../docs/tprof.schema.json" "$WORK/r.json" || fail "the report does not validate"
fi

# A cap of 100 calls: the first 100 are events, the other 150 summarised per op.
tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/c.json" TPROF_TRACE="$WORK/c.trace" TPROF_TRACE_CAP=100 \
   TPROF_OUTPUT="$WORK/c.txt" LD_PRELOAD="$TPROF_SO" "$V" 20 1 > /dev/null || fail "victim failed (cap)"
jcheck "$WORK/c.json" "d['outputs']['trace_events'] == 100" "d['outputs']['trace_past_cap'] == 150"
python3 "$TS/tracecheck.py" "$WORK/c.json" trace "$WORK/c.trace" --cap 100 || fail "trace (cap)"
grep -q '^trace: 150 calls past TPROF_TRACE_CAP are summarised per op' "$WORK/c.txt" || fail "text report: cap not said"

# A 64 KiB budget for 20 x 50 x (k+1) = 10,500 small_matmul calls: the file stays under it.
tp TPROF_DEMOTE=0 TPROF_OPS="$OPS" TPROF_JSON="$WORK/m.json" TPROF_TRACE="$WORK/m.trace" TPROF_TRACE_MAX=64K \
   TPROF_OUTPUT="$WORK/m.txt" LD_PRELOAD="$TPROF_SO" "$V" 20 50 > /dev/null || fail "victim failed (max)"
jcheck "$WORK/m.json" "ops['small_matmul']['calls'] == 10510" "d['outputs']['trace_past_max'] > 0" \
  "d['outputs']['trace_events'] + d['outputs']['trace_past_max'] == d['outputs']['trace_calls']" \
  "d['outputs']['trace_bytes'] <= 65536"
python3 "$TS/tracecheck.py" "$WORK/m.json" trace "$WORK/m.trace" --max 65536 || fail "trace (max)"
grep -q 'calls did not fit the TPROF_TRACE_MAX size budget' "$WORK/m.txt" ||
  fail "text report: budget not said"
exit 0
