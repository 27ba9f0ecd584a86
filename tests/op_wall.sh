#!/bin/sh
# Ops on two threads (tests/victims/v_op_wall.c): wall-clock times count each moment once, the
# verdict and Amdahl use them, and the threads that ran are counted (main + 2 workers).
. "$TS/lib.sh"
V="$TB/victims/v_op_wall"
run() {
  out=$(tp TPROF_OPS='*_forward' TPROF_HOOK_NS=1000 TPROF_WARMUP=0 TPROF_JSON="$WORK/$1.json" \
        TPROF_OUTPUT="$WORK/$1.txt" LD_PRELOAD="$TPROF_SO" "$V" "$1") || fail "victim failed ($1)"
  [ "$out" = "$1 done" ] || fail "stdout changed: $out"
}
both="d['program']['threads'] == 3 \
  and ops['conv_forward']['calls'] == 2 and ops['net_forward']['calls'] == 2"
# The verdict's share is a wall-clock share; Amdahl never goes past the program's wall time.
verdict="d['verdict']['share'] == ops[d['verdict']['op']]['self_wall_share'] \
  and 0 < d['verdict']['share'] < 1 \
  and all(0 <= a['share'] < 1 and 1 <= a['speedup_max'] < 1e6 \
          and abs(a['speedup_max'] * (1 - a['share']) - 1) < 1e-9 for a in d['verdict']['amdahl']) \
  and all(o['self_wall_ns'] * d['verdict']['amdahl'][0]['speedup_max'] <= d['program']['wall_ns'] \
          * (d['verdict']['amdahl'][0]['speedup_max'] - 1) * 1.000001 \
          for o in d['ops'] if o['name'] == d['verdict']['op']) \
  and '1000000' not in d['verdict']['text']"

# One thread at a time: wall-clock and thread times are the same figures, hook costs and all.
run sequential
jcheck "$WORK/sequential.json" "$both" "$verdict" \
  "all(o['wall_ns'] == o['total_ns'] and o['self_wall_ns'] == o['self_ns'] for o in d['ops'])" \
  "ops['net_forward']['self_ns'] < ops['net_forward']['total_ns']" \
  "not any('several threads' in n for n in d['notes'])"

# Both threads inside conv_forward at once (they meet at a barrier in it): the wall-clock time
# is less than the thread time, at least half of it, and the shares built on it stay under 100%.
run overlap
jcheck "$WORK/overlap.json" "$both" "$verdict" \
  "all(o['wall_ns'] < o['total_ns'] and 2 * o['wall_ns'] + 2 >= o['total_ns'] for o in d['ops'])" \
  "all(o['self_wall_ns'] <= o['wall_ns'] and o['self_wall_ns'] <= o['self_ns'] for o in d['ops'])" \
  "all(o['self_wall_share'] <= 1 for o in d['ops'])" \
  "ops['conv_forward']['self_wall_share'] < ops['conv_forward']['self_share']" \
  "0 < d['verdict']['outside_ops_ns'] <= d['verdict']['threads_wall_ns'] == sum(t['wall_ns'] for t in d['threads'])"
grep -q ', threads 3\(,\|$\)' "$WORK/overlap.txt" || fail "text header: $(head -3 "$WORK/overlap.txt")"
grep -q 'wall%' "$WORK/overlap.txt" || fail "no wall% column: $(grep -A3 '^OPS' "$WORK/overlap.txt")"
exit 0
