/* Ops: the registry, the per-thread op stack, and per-op statistics (ops_collect.c makes the
 * report of them).
 *
 * Every way an op is seen ends in tp_op_begin/tp_op_end. Durations are measured in ticks
 * (common/clock.h) and become nanoseconds only in the report. Ops run on many threads at once
 * (OpenMP regions, OpenBLAS pools): an op's figures are written by its owner thread with plain
 * stores and by the others with atomics, into figures of their own (track/ops/ops_table.c). The stack
 * is in initial-exec TLS, fixed depth.
 *
 * Self time is total time minus the time of the ops nested inside it. An op that recurses into
 * itself counts every call, but adds to its total only at the outermost level, so its total is
 * never more than the wall time it really took. Frames that a longjmp or an exception skipped
 * are closed when the skip is noticed: on the next begin at the same or a shallower stack depth,
 * or on the end of an op below them. */
#include "track/ops/ops.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/histo/histo.h"
#include "track/steps/steps.h"
#include "track/ops/opwall.h"
#include "track/runtime.h"
#include "track/out/out.h"

#define MAX_DEPTH  TP_OPS_MAX_DEPTH
#define MAX_SHAPES TP_OPS_MAX_SHAPES

struct frame {
    int id;
    struct tp_op_rec *rec; /* the id's record, looked up once at the begin */
    int recursive;         /* the same op is open below: do not add to its total */
    int node;              /* op-stack node (track/ops/optree.c) when TPROF_FOLDED is on */
    uintptr_t key, sp;
    uint64_t t0, child, flops, bytes;
    uint64_t hooks0; /* non-op instrumentation hooks run on this thread when the op began */
    int in_wall;     /* counted in its op's wall-clock word (track/ops/opwall.h) */
};

struct opstack {
    int depth;
    struct frame f[MAX_DEPTH];
};

static TP_TLS struct opstack stack;

_Atomic uint64_t tp_ops_overflow, tp_ops_unpaired;
static _Atomic uint64_t skipped_total;
TP_TLS uint64_t tp_cyg_hooks;
_Atomic tp_ops_boundary_fn tp_ops_boundary_hook;
uint64_t tp_cyg_hook_cost_fp;

void tp_ops_init(void)
{
    tp_ops_table_init();
    tp_steps_init();
}

/* ---- recording ---- */

/* Is this thread the owner of r, whose figures it writes without locked adds (track/ops/ops_table.c)? The
 * first thread to end a call of the op becomes it. A thread's token is the address of its op
 * stack: unique among the threads alive, and a thread that reuses a finished owner's takes its
 * place, alone as it was. */
static inline int own_rec(struct tp_op_rec *r)
{
    uintptr_t me = (uintptr_t)&stack, o = atomic_load_explicit(&r->owner, memory_order_relaxed);
    if (tp_likely(o == me))
        return 1;
    return o == 0 && atomic_compare_exchange_strong_explicit(
                         &r->owner, &o, me, memory_order_relaxed, memory_order_relaxed);
}

/* A figure only this thread writes. */
static inline void own_add(_Atomic uint64_t *a, uint64_t v)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

/* Add v to figure f of r: the owner's, or the other threads' (sh_f). */
#define ADD(r, own, f, v)                                                                          \
    ((own) ? own_add(&(r)->f, (v))                                                                 \
           : (void)atomic_fetch_add_explicit(&(r)->sh_##f, (v), memory_order_relaxed))

/* The other threads' histogram of r, made by the first of them (pages from the kernel: no
 * allocator); NULL when there is no memory for it, and then that call's time is left out. */
static struct tp_histo *shared_histo(struct tp_op_rec *r)
{
    struct tp_histo *h = atomic_load_explicit(&r->sh_histo, memory_order_acquire);
    if (tp_likely(h != NULL))
        return h;
    int e = errno;
    struct tp_histo *n = tp_histo_new();
    if (n && !atomic_compare_exchange_strong(&r->sh_histo, &h, n))
        tp_histo_destroy(n); /* another thread's came first: h is it */
    else if (n)
        h = n;
    errno = e;
    return h;
}

/* The slot this thread's last shape with a token went to (tp_shape_key.token), valid while no
 * fork emptied the slots (shape_gen). */
static TP_TLS struct {
    const struct tp_op_rec *r;
    uint64_t token;
    unsigned gen;
    int slot;
} hint;
static unsigned shape_gen;

/* A slot another thread (or an interrupted caller on this one: a signal handler) is still
 * filling is skipped, never waited for; the same key may then get a second slot, and the report
 * adds such slots up. */
static inline void add_to_slot(struct tp_shape_rec *s, int own, uint64_t ticks, uint64_t fl,
                               uint64_t by)
{
    ADD(s, own, calls, 1);
    ADD(s, own, ticks, ticks);
    ADD(s, own, flops, fl);
    ADD(s, own, bytes, by);
}

static int add_shape(struct tp_op_rec *r, int own, const struct tp_shape_key *k, uint64_t ticks,
                     uint64_t fl, uint64_t by)
{
    if (k->token && k->token == hint.token && r == hint.r && hint.gen == shape_gen) {
        add_to_slot(&r->shapes[hint.slot], own, ticks, fl, by);
        return hint.slot;
    }
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
            add_to_slot(s, own, ticks, fl, by);
            if (k->token) { /* the token last: a signal handler's call in between sees none */
                hint.token = 0;
                atomic_signal_fence(memory_order_seq_cst);
                hint.r = r;
                hint.gen = shape_gen;
                hint.slot = i;
                atomic_signal_fence(memory_order_seq_cst);
                hint.token = k->token;
            }
            return i;
        }
    }
    atomic_fetch_add(&r->shapes_dropped, 1);
    return -1;
}

/* Close frame i (the top of the stack) at time t. Returns its duration, TP_OP_NO_TIME when it
 * recursed into an open call of the same op. */
static inline __attribute__((always_inline)) uint64_t close_top_inline(
    uint64_t t, uint64_t fl, uint64_t by, const struct tp_shape_key *shape, int skipped)
{
    /* The frame's fields are read once, into locals: the figures' stores below may alias them
     * as far as the compiler knows, and a signal handler's op may reuse the slot. */
    int depth = --stack.depth;
    const struct frame *f = &stack.f[depth];
    struct tp_op_rec *r = f->rec;
    int id = f->id, recursive = f->recursive, node = f->node, in_wall = f->in_wall;
    tp_ops_boundary_fn boundary = atomic_load_explicit(&tp_ops_boundary_hook, memory_order_relaxed);
    if (tp_unlikely(boundary != NULL))
        boundary(id);
    uint64_t t0 = f->t0, child = f->child, hooks = tp_cyg_hooks - f->hooks0;
    fl += f->flops;
    by += f->bytes;
    uint64_t raw = t > t0 ? t - t0 : 0, dur = raw;
    /* Take out what tprof's own -finstrument-functions hooks of the non-op functions called
     * inside the op cost: without it a loop over a tiny instrumented helper makes its op look
     * several times slower than it is. */
    if (hooks && tp_cyg_hook_cost_fp) {
        uint64_t cost = (uint64_t)(((unsigned __int128)hooks * tp_cyg_hook_cost_fp) >> 16);
        dur = dur > cost ? dur - cost : 0;
    }
    uint64_t self = dur > child ? dur - child : 0;
    if (depth > 0)
        stack.f[depth - 1].child += dur;
    int own = own_rec(r);
    if (in_wall) {
        uint64_t busy = tp_wall_leave(&r->in_total, t);
        if (busy)
            ADD(r, own, wall, busy);
        if (dur != raw) /* to come out of the wall-clock time alike */
            ADD(r, own, hook_total, raw - dur);
    }
    /* the call's number among all threads' (the warm-up is the op's first calls) */
    uint64_t call;
    if (own) {
        call = atomic_load_explicit(&r->calls, memory_order_relaxed);
        atomic_store_explicit(&r->calls, call + 1, memory_order_relaxed);
        call += atomic_load_explicit(&r->sh_calls, memory_order_relaxed);
    } else {
        call = atomic_fetch_add_explicit(&r->sh_calls, 1, memory_order_relaxed) +
               atomic_load_explicit(&r->calls, memory_order_relaxed);
    }
    if (!recursive)
        ADD(r, own, total, dur);
    ADD(r, own, self, self);
    if (call < (uint64_t)tp_cfg.warmup) {
        ADD(r, own, warm_calls, 1);
        ADD(r, own, warm_ticks, dur);
    } else if (own) {
        tp_histo_add_own(r->histo, dur);
    } else {
        struct tp_histo *h = shared_histo(r);
        if (h)
            tp_histo_add(h, dur);
    }
    if (fl || by) {
        ADD(r, own, flops, fl);
        ADD(r, own, bytes, by);
        if (!atomic_load_explicit(&r->flops_known, memory_order_relaxed))
            atomic_store_explicit(&r->flops_known, 1, memory_order_relaxed);
    }
    int slot = shape ? add_shape(r, own, shape, dur, fl, by) : -1;
    if (node != TP_OPTREE_NONE)
        tp_optree_add(node, dur, self, fl);
    if (tp_trace_on)
        tp_trace_call(id, t0, t0 + dur, fl, slot);
    if (skipped) {
        atomic_fetch_add_explicit(&r->skipped, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&skipped_total, 1, memory_order_relaxed);
    }
    if (depth == 0) { /* the point after the unit's end: its floor counts it */
        tp_cpu_in_op(raw, raw - dur);
        tp_lifeunit_outer_end(id, dur, r->never_step);
        tp_series_heap(id, t);
        tp_ledger_tick(t); /* after the call's end: its reading is no part of the op */
    }
    return recursive ? TP_OP_NO_TIME : dur;
}

/* The frames a longjmp skipped are closed out of line; a call's own end, inline in tp_op_end. */
static __attribute__((noinline)) uint64_t close_top(uint64_t t, uint64_t fl, uint64_t by,
                                                    const struct tp_shape_key *shape, int skipped)
{
    return close_top_inline(t, fl, by, shape, skipped);
}

int tp_op_begin(int id, uintptr_t key, uintptr_t sp)
{
    if (id < 0 || !tp_running() || tp_guard)
        return 0;
    if (tp_cfg.sched_active >= 0 && !tp_steps_in_window()) /* a schedule's window */
        return 0;
    /* An active ancestor always has a higher frame address (the stack grows down): frames at
     * the same depth or deeper than the new one were skipped by longjmp or an exception. */
    if (sp && stack.depth > 0 && stack.f[stack.depth - 1].sp && stack.f[stack.depth - 1].sp <= sp) {
        uint64_t t = tp_ticks();
        while (stack.depth > 0 && stack.f[stack.depth - 1].sp && stack.f[stack.depth - 1].sp <= sp)
            close_top(t, 0, 0, NULL, 1);
    }
    int depth = stack.depth;
    if (depth >= MAX_DEPTH) {
        atomic_fetch_add_explicit(&tp_ops_overflow, 1, memory_order_relaxed);
        return 0;
    }
    struct frame *f = &stack.f[depth];
    int recursive = 0;
    for (int i = 0; i < depth; i++)
        if (stack.f[i].id == id) {
            recursive = 1;
            break;
        }
    f->id = id;
    f->key = key;
    f->sp = sp;
    f->child = f->flops = f->bytes = 0;
    f->recursive = recursive;
    f->node = tp_optree_on ? tp_optree_child(depth ? stack.f[depth - 1].node : TP_OPTREE_NONE, id)
                           : TP_OPTREE_NONE;
    tp_ops_boundary_fn boundary = atomic_load_explicit(&tp_ops_boundary_hook, memory_order_relaxed);
    if (tp_unlikely(boundary != NULL))
        boundary(depth ? stack.f[depth - 1].id : -1);
    tp_lifeunit_op_begin(depth, id);
    stack.depth = depth + 1;
    tp_thread_note();
    if (tp_unlikely(!tp_ops_first_ns()))
        tp_ops_note_first();
    f->hooks0 = tp_cyg_hooks;
    /* One reading for the wall-clock words and the op's own times: on one thread they agree */
    uint64_t t = tp_ticks();
    if (depth == 0 && tp_unlikely(tp_ledger_due_at(t))) {
        /* the memory ledger's reading is tprof's time, not the op's: the op starts after it */
        tp_ledger_poll(t);
        t = tp_ticks();
    }
    struct tp_op_rec *r = tp_op_rec(id);
    f->rec = r;
    int up = depth && stack.f[depth - 1].id != id ? stack.f[depth - 1].id + 1 : -1,
        was = atomic_load_explicit(&r->parent, memory_order_relaxed);
    if (tp_unlikely(was != up) && was != -1 &&
        !(was == 0 && atomic_compare_exchange_strong(&r->parent, &was, up)))
        atomic_store_explicit(&r->parent, -1, memory_order_relaxed);
    f->in_wall = !recursive && tp_wall_enter(&r->in_total, t);
    f->t0 = t;
    if (depth == 0) /* the heap over time: a point where the clock is read anyway */
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
    return close_top_inline(t, flops, bytes, shape, 0);
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
    shape_gen++; /* the slots are emptied below */
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
        atomic_store(&r->wait_ticks, 0);
        atomic_store(&r->cpu_samples, 0);
        atomic_store(&r->spin_samples, 0);
        atomic_store(&r->inwait_samples, 0);
        atomic_store(&r->wait_kinds, 0);
        atomic_store(&r->owner, 0);
        atomic_store(&r->sh_calls, 0);
        atomic_store(&r->sh_total, 0);
        atomic_store(&r->sh_self, 0);
        atomic_store(&r->sh_flops, 0);
        atomic_store(&r->sh_bytes, 0);
        atomic_store(&r->sh_warm_calls, 0);
        atomic_store(&r->sh_warm_ticks, 0);
        atomic_store(&r->sh_wall, 0);
        atomic_store(&r->sh_hook_total, 0);
        struct tp_histo *h = atomic_exchange(&r->sh_histo, NULL);
        tp_histo_destroy(h); /* the other threads are gone */
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
