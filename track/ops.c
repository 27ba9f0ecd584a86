/* Ops: the registry, the per-thread op stack, and per-op statistics (ops_collect.c makes the
 * report of them).
 *
 * Every way an op is seen ends in tp_op_begin/tp_op_end. Durations are measured in ticks
 * (common/clock.h) and become nanoseconds only in the report. Counters are atomics: ops run on many
 * threads at once (OpenMP regions, OpenBLAS pools). The stack is in initial-exec TLS, fixed depth.
 *
 * Self time is total time minus the time of the ops nested inside it. An op that recurses into
 * itself counts every call, but adds to its total only at the outermost level, so its total is
 * never more than the wall time it really took. Frames that a longjmp or an exception skipped
 * are closed when the skip is noticed: on the next begin at the same or a shallower stack depth,
 * or on the end of an op below them. */
#include "track/ops.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/histo.h"
#include "track/ops_table.h"
#include "track/opwall.h"
#include "track/optree.h"
#include "track/runtime.h"
#include "track/series.h"
#include "track/steps.h"
#include "track/threads.h"
#include "track/tracebuf.h"
#include "track/lifeunit.h"

#define MAX_DEPTH  TP_OPS_MAX_DEPTH
#define MAX_SHAPES TP_OPS_MAX_SHAPES

struct frame {
    int id;
    struct tp_op_rec *rec; /* the id's record, looked up once at the begin */
    int recursive;         /* the same op is open below: do not add to its total */
    int node;              /* op-stack node (track/optree.h) when TPROF_FOLDED is on */
    uintptr_t key, sp;
    uint64_t t0, child, flops, bytes;
    uint64_t hooks0; /* non-op instrumentation hooks run on this thread when the op began */
    int in_wall;     /* counted in its op's wall-clock word (track/opwall.h) */
};

struct opstack {
    int depth;
    struct frame f[MAX_DEPTH];
};

static TP_TLS struct opstack stack;

_Atomic uint64_t tp_ops_overflow, tp_ops_unpaired;
static _Atomic uint64_t skipped_total;
TP_TLS uint64_t tp_cyg_hooks;
uint64_t tp_cyg_hook_cost_fp;

void tp_ops_init(void)
{
    tp_ops_table_init();
    tp_steps_init();
}

/* ---- recording ---- */

/* A slot another thread (or an interrupted caller on this one: a signal handler) is still
 * filling is skipped, never waited for; the same key may then get a second slot, and the report
 * adds such slots up. */
static int add_shape(struct tp_op_rec *r, const struct tp_shape_key *k, uint64_t ticks, uint64_t fl,
                     uint64_t by)
{
    for (int i = 0; i < MAX_SHAPES; i++) {
        struct tp_shape_rec *s = &r->shapes[i];
        int u = atomic_load_explicit(&s->used, memory_order_acquire);
        if (u == 0) {
            int expect = 0;
            if (atomic_compare_exchange_strong(&s->used, &expect, 1)) {
                s->key = *k;
                atomic_store_explicit(&s->used, 2, memory_order_release);
                u = 2;
            } else {
                u = expect;
            }
        }
        if (u == 2 && tp_shape_same(&s->key, k)) {
            atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->ticks, ticks, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->flops, fl, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->bytes, by, memory_order_relaxed);
            return i;
        }
    }
    atomic_fetch_add(&r->shapes_dropped, 1);
    return -1;
}

/* Close frame i (the top of the stack) at time t. Returns its duration, TP_OP_NO_TIME when it
 * recursed into an open call of the same op. */
static uint64_t close_top(uint64_t t, uint64_t fl, uint64_t by, const struct tp_shape_key *shape,
                          int skipped)
{
    struct frame *f = &stack.f[--stack.depth];
    struct tp_op_rec *r = f->rec;
    uint64_t raw = t > f->t0 ? t - f->t0 : 0, dur = raw;
    /* Take out what tprof's own -finstrument-functions hooks of the non-op functions called
     * inside the op cost: without it a loop over a tiny instrumented helper makes its op look
     * several times slower than it is. */
    uint64_t hooks = tp_cyg_hooks - f->hooks0;
    if (hooks && tp_cyg_hook_cost_fp) {
        uint64_t cost = (uint64_t)(((unsigned __int128)hooks * tp_cyg_hook_cost_fp) >> 16);
        dur = dur > cost ? dur - cost : 0;
    }
    uint64_t self = dur > f->child ? dur - f->child : 0;
    if (f->in_wall) {
        tp_wall_leave(&r->in_total, &r->wall, t);
        if (dur != raw) /* to come out of the wall-clock time alike */
            atomic_fetch_add_explicit(&r->hook_total, raw - dur, memory_order_relaxed);
    }
    if (stack.depth > 0)
        stack.f[stack.depth - 1].child += dur;
    fl += f->flops;
    by += f->bytes;
    uint64_t call = atomic_fetch_add_explicit(&r->calls, 1, memory_order_relaxed);
    if (!f->recursive)
        atomic_fetch_add_explicit(&r->total, dur, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->self, self, memory_order_relaxed);
    if (call < (uint64_t)tp_cfg.warmup) {
        atomic_fetch_add_explicit(&r->warm_calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->warm_ticks, dur, memory_order_relaxed);
    } else {
        tp_histo_add(r->histo, dur);
    }
    if (fl || by) {
        atomic_fetch_add_explicit(&r->flops, fl, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->bytes, by, memory_order_relaxed);
        if (!atomic_load_explicit(&r->flops_known, memory_order_relaxed))
            atomic_store_explicit(&r->flops_known, 1, memory_order_relaxed);
    }
    int slot = shape ? add_shape(r, shape, dur, fl, by) : -1;
    if (f->node != TP_OPTREE_NONE)
        tp_optree_add(f->node, dur, self);
    if (tp_trace_on)
        tp_trace_call(f->id, f->t0, f->t0 + dur, fl, slot);
    if (skipped) {
        atomic_fetch_add_explicit(&r->skipped, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&skipped_total, 1, memory_order_relaxed);
    }
    if (stack.depth == 0) { /* the point after the unit's end: its floor counts it */
        tp_lifeunit_outer_end(f->id, dur);
        tp_series_heap(f->id, t);
    }
    return f->recursive ? TP_OP_NO_TIME : dur;
}

int tp_op_begin(int id, uintptr_t key, uintptr_t sp)
{
    if (id < 0 || !tp_running() || tp_guard)
        return 0;
    if (!tp_steps_in_window())
        return 0;
    /* An active ancestor always has a higher frame address (the stack grows down): frames at
     * the same depth or deeper than the new one were skipped by longjmp or an exception. */
    if (sp && stack.depth > 0 && stack.f[stack.depth - 1].sp && stack.f[stack.depth - 1].sp <= sp) {
        uint64_t t = tp_ticks();
        while (stack.depth > 0 && stack.f[stack.depth - 1].sp && stack.f[stack.depth - 1].sp <= sp)
            close_top(t, 0, 0, NULL, 1);
    }
    if (stack.depth >= MAX_DEPTH) {
        atomic_fetch_add_explicit(&tp_ops_overflow, 1, memory_order_relaxed);
        return 0;
    }
    struct frame *f = &stack.f[stack.depth];
    f->id = id;
    f->key = key;
    f->sp = sp;
    f->child = f->flops = f->bytes = 0;
    f->recursive = 0;
    f->node =
        tp_optree_on
            ? tp_optree_child(stack.depth ? stack.f[stack.depth - 1].node : TP_OPTREE_NONE, id)
            : TP_OPTREE_NONE;
    for (int i = 0; i < stack.depth; i++)
        if (stack.f[i].id == id) {
            f->recursive = 1;
            break;
        }
    tp_lifeunit_op_begin(stack.depth, id);
    stack.depth++;
    tp_thread_note();
    tp_ops_note_first();
    f->hooks0 = tp_cyg_hooks;
    /* One reading for the wall-clock words and the op's own times: on one thread they agree */
    uint64_t t = tp_ticks();
    f->rec = tp_op_rec(id);
    f->in_wall = !f->recursive && tp_wall_enter(&f->rec->in_total, t);
    f->t0 = t;
    if (stack.depth == 1) /* the heap over time: a point where the clock is read anyway */
        tp_series_heap(id, t);
    return 1;
}

uint64_t tp_op_end(int id, uintptr_t key, uintptr_t sp, uint64_t flops, uint64_t bytes,
                   const struct tp_shape_key *shape)
{
    (void)sp;
    if (id < 0)
        return TP_OP_NO_TIME;
    if (stack.depth == 0) {
        if (tp_running() && tp_steps_in_window())
            atomic_fetch_add_explicit(&tp_ops_unpaired, 1, memory_order_relaxed);
        return TP_OP_NO_TIME;
    }
    uint64_t t = tp_ticks();
    int i = stack.depth - 1;
    while (i >= 0 && !(stack.f[i].id == id && stack.f[i].key == key))
        i--;
    if (i < 0) {
        /* outside a TPROF_SCHEDULE window the begin was not recorded either */
        if (tp_steps_in_window())
            atomic_fetch_add_explicit(&tp_ops_unpaired, 1, memory_order_relaxed);
        return TP_OP_NO_TIME;
    }
    while (stack.depth - 1 > i)
        close_top(t, 0, 0, NULL, 1);
    return close_top(t, flops, bytes, shape, 0);
}

int tp_op_depth(void)
{
    return stack.depth;
}

int tp_ops_running(void)
{
    int n = atomic_load_explicit(&tp_op_nrecs, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&tp_op_rec(i)->in_total, memory_order_relaxed) & TP_WALL_CNT_MASK)
            return 1;
    return 0;
}

int tp_ops_current(void)
{
    return stack.depth > 0 ? stack.f[stack.depth - 1].id : -1;
}

int tp_op_top_is(enum tp_op_source src)
{
    return stack.depth > 0 && stack.f[stack.depth - 1].rec->src == src;
}

void tp_op_add_work(uint64_t flops, uint64_t bytes)
{
    if (stack.depth > 0) {
        stack.f[stack.depth - 1].flops += flops;
        stack.f[stack.depth - 1].bytes += bytes;
    }
}

void tp_ops_on_alloc(size_t bytes)
{
    if (stack.depth > 0) {
        struct tp_op_rec *r = stack.f[stack.depth - 1].rec;
        atomic_fetch_add_explicit(&r->alloc_bytes, bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->alloc_count, 1, memory_order_relaxed);
    }
}

const char *tp_ops_name(int id)
{
    return id >= 0 && id < atomic_load(&tp_op_nrecs) ? tp_op_rec(id)->name : NULL;
}

const char *tp_ops_kind(int id)
{
    return id >= 0 && id < atomic_load(&tp_op_nrecs) ? tp_op_rec(id)->kind : NULL;
}

/* ---- fork and report ---- */

void tp_ops_fork_child(void)
{
    tp_ops_table_fork_child();
    tp_threads_fork_child();
    /* The child reports its own work: what the parent did before fork is the parent's. */
    int n = atomic_load(&tp_op_nrecs);
    for (int i = 0; i < n; i++) {
        struct tp_op_rec *r = tp_op_rec(i);
        atomic_store(&r->calls, 0);
        atomic_store(&r->total, 0);
        atomic_store(&r->self, 0);
        atomic_store(&r->flops, 0);
        atomic_store(&r->bytes, 0);
        atomic_store(&r->alloc_bytes, 0);
        atomic_store(&r->alloc_count, 0);
        atomic_store(&r->warm_calls, 0);
        atomic_store(&r->warm_ticks, 0);
        atomic_store(&r->skipped, 0);
        atomic_store(&r->in_total, 0);
        atomic_store(&r->wall, 0);
        atomic_store(&r->hook_total, 0);
        /* slots are claimed in order: those past the first free one were never touched */
        for (int k = 0; k < MAX_SHAPES && atomic_load(&r->shapes[k].used); k++)
            memset(&r->shapes[k], 0, sizeof r->shapes[k]);
    }
    tp_steps_fork_child();
    tp_lifeunit_fork_child();
    uint64_t t = tp_ticks();
    for (int i = 0; i < stack.depth; i++) {
        struct frame *f = &stack.f[i];
        f->t0 = t, f->child = 0;
        f->in_wall = !f->recursive && tp_wall_enter(&f->rec->in_total, t);
    }
}
