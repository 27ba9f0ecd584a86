#!/bin/sh
# An OpenMP (libgomp) program: 4 threads allocate, free and call an instrumented op from a
# parallel for. Totals are exact whatever the schedule; output and exit status unchanged.
. "$TS/lib.sh"
V=$TB/victims/v_omp
native=$("$V") || fail "native run failed"
out=$(tp TPROF_OPS='*forward*' TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "victim failed under tprof"
[ "$out" = "$native" ] || fail "stdout changed: $out"
# 20,000 items of 64 + i % 256 bytes: 3,826,416 bytes
jcheck "$WORK/r.json" "site('work_item')['allocs'] == 20000" "site('work_item')['frees'] == 20000" \
  "site('work_item')['bytes'] == 3826416" "site('work_item')['live_at_exit_bytes'] == 0" \
  "ops['omp_block_forward']['calls'] == 20000" \
  "ops['omp_block_forward']['total_ns'] <= 4 * d['program']['wall_ns']"
# The team of 4 (the pool stays until exit, whichever threads got iterations); the op's
# wall-clock time within the run, its share under 100%, Amdahl bounded by it; libgomp named
# among the runtimes loaded (the CPU verdict's advice names OMP_NUM_THREADS for it).
jcheck "$WORK/r.json" "d['program']['threads'] == 4" \
  "d['program']['thread_runtimes'] == 'openmp'" \
  "ops['omp_block_forward']['wall_ns'] <= min(d['program']['wall_ns'], ops['omp_block_forward']['total_ns'])" \
  "ops['omp_block_forward']['self_wall_share'] <= 1 and d['verdict']['share'] <= 1" \
  "all(1 <= a['speedup_max'] < 1e6 for a in d['verdict']['amdahl'])"
exit 0
