/* Waiting and CPU samples charged to ops (track/ops/ops.h's tp_ops_on_wait, tp_ops_on_sample): the
 * figures go to the op's record, which every thread adds to with atomics (track/ops/ops_table.c). */
#include <stdatomic.h>
#include <stdint.h>

#include "track/ops/ops.h"
#include "track/ops/opwall.h"

/* The running op whose busy period began last (the word's start bits: opwall.h), NULL when none
 * runs: nested ops on one thread began after the ops around them, so it is the innermost of the
 * thread that began it. Linear in the ops interned: a thread with no op open
 * pays it at each hooked wait (an OpenBLAS worker's sched_yield: 35 instructions with a few ops;
 * a program with thousands of instrumented ops makes its idle workers' yields slower). */
static int latest_running(void)
{
    int n = atomic_load_explicit(&tp_op_nrecs, memory_order_acquire);
    int best = -1;
    uint64_t best_start = 0;
    for (int i = 0; i < n; i++) {
        struct tp_op_rec *r = tp_op_rec(i);
        uint64_t w = atomic_load_explicit(&r->in_total, memory_order_relaxed);
        if (!(w & TP_WALL_CNT_MASK))
            continue;
        uint64_t start = w >> TP_WALL_CNT_BITS;
        if (best < 0 || tp_wall_since(start, best_start))
            best = i, best_start = start;
    }
    return best;
}

static int charged_id(void)
{
    /* the id is set before the frame is pushed: a signal in between sees the op below */
    int id = tp_ops_current();
    return id >= 0 ? id : latest_running();
}

/* A hooked wait is charged to the op open on its own thread only. On a thread with no op open it
 * is that thread's alone (threads[].wait_ns): an OpenBLAS worker yielding between two BLAS calls
 * is idle, not waiting inside the op the main thread runs meanwhile (charged to it, im2col_cpu of
 * a quiet CNN run read 63% waiting, and "fewer threads" was advised for a single-threaded op). */
void tp_ops_on_wait(uint64_t ticks, unsigned kinds)
{
    int id = tp_ops_current();
    if (id < 0)
        return;
    struct tp_op_rec *r = tp_op_rec(id);
    atomic_fetch_add_explicit(&r->wait_ticks, ticks, memory_order_relaxed);
    if ((atomic_load_explicit(&r->wait_kinds, memory_order_relaxed) & kinds) != kinds)
        atomic_fetch_or_explicit(&r->wait_kinds, kinds, memory_order_relaxed);
}

/* A sample on a thread with no op open is the running op's when that thread works (an OpenBLAS
 * or OpenMP worker computing the op's part) or spins in an OpenMP runtime (its workers wait at
 * the region's barriers); inside a hooked wait it is the thread's own idling, outside every op,
 * as its hooked waits are (tp_ops_on_wait). */
int tp_ops_on_sample(int cls)
{
    if (cls == TP_SAMPLE_INWAIT && tp_ops_current() < 0)
        return 0;
    int id = charged_id();
    if (id < 0)
        return 0;
    struct tp_op_rec *r = tp_op_rec(id);
    atomic_fetch_add_explicit(&r->cpu_samples, 1, memory_order_relaxed);
    if (cls == TP_SAMPLE_SPIN)
        atomic_fetch_add_explicit(&r->spin_samples, 1, memory_order_relaxed);
    else if (cls == TP_SAMPLE_INWAIT)
        atomic_fetch_add_explicit(&r->inwait_samples, 1, memory_order_relaxed);
    return id + 1;
}
