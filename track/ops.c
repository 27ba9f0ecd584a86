/* Ops: the registry, the per-thread op stack, and per-op statistics (DESIGN §4).
 *
 * Every way an op is seen ends in tp_op_begin/tp_op_end. Durations are measured in ticks
 * (src/clock.h) and become nanoseconds only in the report. Counters are atomics: ops run on many
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
#include "track/runtime.h"
#include "preload/cyg.h"
#include "track/optree.h"
#include "report/report.h"
#include "preload/real.h"
#include "track/trace.h"

#define MAX_DEPTH 128
#define MAX_SHAPES TP_OPS_MAX_SHAPES

struct shape_rec {
    struct tp_shape_key key;
    _Atomic uint64_t calls, ticks, flops, bytes;
    _Atomic int used; /* 0 free, 1 being filled, 2 ready */
};

struct op_rec {
    const char *name, *kind;
    enum tp_op_source src;
    uint64_t hash;
    _Atomic uint64_t calls, total, self, flops, bytes, alloc_bytes, alloc_count;
    _Atomic uint64_t warm_calls, warm_ticks, skipped;
    _Atomic int flops_known;
    struct tp_histo *histo;
    struct shape_rec shapes[MAX_SHAPES];
    _Atomic uint64_t shapes_dropped;
};

struct frame {
    int id;
    int recursive; /* the same op is open below: do not add to its total */
    int node;      /* op-stack node (preload/optree.h) when TPROF_FOLDED is on */
    uintptr_t key, sp;
    uint64_t t0, child, flops, bytes;
    uint64_t hooks0; /* non-op instrumentation hooks run on this thread when the op began */
};

struct opstack {
    int depth;
    struct frame f[MAX_DEPTH];
};

static TP_TLS struct opstack stack;

static struct op_rec *recs;
static _Atomic int nrecs;
static int cap;
static _Atomic int *index_; /* open addressing over names: op id + 1, 0 empty */
static int index_mask;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic uint64_t tp_ops_first_ns_v; /* read inline by tp_ops_first_ns() (ops.h) */
static _Atomic uint64_t dropped_ops, overflow, unpaired, skipped_total;

/* Steps. */
static struct tp_histo *step_histo;
static _Atomic uint64_t step_count, step_warm, step_last_mark;
static TP_TLS int step_depth;
static TP_TLS uint64_t step_t0;
static _Atomic uint64_t step_index_started; /* steps begun so far (schedule) */
static _Atomic int step_running;             /* inside the TPROF_STEP function */

void tp_ops_init(void)
{
    cap = (int)tp_cfg.max_ops;
    recs = tp_calloc((size_t)cap, sizeof *recs);
    int slots = 1;
    while (slots < 2 * cap)
        slots <<= 1;
    index_ = tp_calloc((size_t)slots, sizeof *index_);
    index_mask = slots - 1;
    if (!recs || !index_) {
        tp_warn("cannot allocate the op table; ops are off");
        cap = 0;
    }
    step_histo = tp_histo_new();
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int find(const char *name, uint64_t h)
{
    for (int i = 0; i <= index_mask; i++) {
        int v = atomic_load_explicit(&index_[(h + (uint64_t)i) & (uint64_t)index_mask],
                                     memory_order_acquire);
        if (!v)
            return -1;
        struct op_rec *r = &recs[v - 1];
        if (r->hash == h && !strcmp(r->name, name))
            return v - 1;
    }
    return -1;
}

static const char *source_name(enum tp_op_source s)
{
    switch (s) {
    case TP_SRC_BLAS: return "blas";
    case TP_SRC_INSTR: return "instrumented";
    case TP_SRC_PLT: return "plt";
    case TP_SRC_API: return "api";
    }
    return "?";
}

int tp_op_intern(const char *name, const char *kind, enum tp_op_source src)
{
    if (!cap || !name)
        return -1;
    uint64_t h = hash_name(name);
    int id = find(name, h);
    if (id >= 0)
        return id;
    int g = tp_guard;
    tp_guard = 1;
    pthread_mutex_lock(&intern_lock);
    id = find(name, h);
    if (id < 0) {
        int n = atomic_load(&nrecs);
        if (n >= cap) {
            atomic_fetch_add(&dropped_ops, 1);
        } else {
            struct op_rec *r = &recs[n];
            r->name = tp_strdup(name);
            r->kind = tp_strdup(kind ? kind : "op");
            r->src = src;
            r->hash = h;
            r->histo = tp_histo_new();
            if (r->name && r->kind && r->histo) {
                atomic_store(&nrecs, n + 1);
                for (int i = 0; i <= index_mask; i++) {
                    _Atomic int *slot = &index_[(h + (uint64_t)i) & (uint64_t)index_mask];
                    if (!atomic_load(slot)) {
                        atomic_store_explicit(slot, n + 1, memory_order_release);
                        break;
                    }
                }
                id = n;
            }
        }
    }
    pthread_mutex_unlock(&intern_lock);
    tp_guard = g;
    return id;
}

/* ---- schedule (TPROF_SCHEDULE wait:warmup:active) ---- */

/* Is step k (0-based) recorded? The one place that decides it. */
static int step_recorded(uint64_t k)
{
    if (tp_cfg.sched_active < 0)
        return 1;
    uint64_t lo = (uint64_t)(tp_cfg.sched_wait + tp_cfg.sched_warmup);
    return k >= lo && k < lo + (uint64_t)tp_cfg.sched_active;
}

/* Is what runs now recorded? */
static int in_window(void)
{
    if (tp_cfg.sched_active < 0)
        return 1;
    uint64_t begun = atomic_load_explicit(&step_index_started, memory_order_relaxed);
    if (begun == 0)
        return 0; /* before the first step */
    /* With a step function, only what runs inside a step belongs to it; with markers, the time
     * after a mark belongs to the next step. */
    if (tp_cfg.step && !atomic_load_explicit(&step_running, memory_order_relaxed))
        return 0;
    return step_recorded(begun - 1);
}

static void note_first(void)
{
    if (!atomic_load_explicit(&tp_ops_first_ns_v, memory_order_relaxed)) {
        uint64_t zero = 0;
        atomic_compare_exchange_strong(&tp_ops_first_ns_v, &zero, tp_now_ns());
    }
}

/* ---- recording ---- */

/* Field by field: the padding of a key built on the caller's stack is not initialised. */
static int same_shape(const struct tp_shape_key *a, const struct tp_shape_key *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->transa == b->transa &&
           a->transb == b->transb && a->layout == b->layout && a->side == b->side &&
           a->uplo == b->uplo;
}

/* A slot another thread (or an interrupted caller on this one: a signal handler) is still
 * filling is skipped, never waited for; the same key may then get a second slot, and the report
 * adds such slots up. */
static int add_shape(struct op_rec *r, const struct tp_shape_key *k, uint64_t ticks, uint64_t fl,
                     uint64_t by)
{
    for (int i = 0; i < MAX_SHAPES; i++) {
        struct shape_rec *s = &r->shapes[i];
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
        if (u == 2 && same_shape(&s->key, k)) {
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

/* Close frame i (the top of the stack) at time t. */
static void close_top(uint64_t t, uint64_t fl, uint64_t by, const struct tp_shape_key *shape,
                      int skipped)
{
    struct frame *f = &stack.f[--stack.depth];
    struct op_rec *r = &recs[f->id];
    uint64_t dur = t > f->t0 ? t - f->t0 : 0;
    /* Take out what tprof's own -finstrument-functions hooks of the non-op functions called
     * inside the op cost (PITFALLS, seen in real programs #7): without it a loop over a tiny
     * instrumented helper makes its op look several times slower than it is. */
    uint64_t hooks = tp_cyg_hooks - f->hooks0;
    if (hooks && tp_cyg_hook_cost_fp) {
        uint64_t cost = (uint64_t)(((unsigned __int128)hooks * tp_cyg_hook_cost_fp) >> 16);
        dur = dur > cost ? dur - cost : 0;
    }
    uint64_t self = dur > f->child ? dur - f->child : 0;
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
}

int tp_op_begin(int id, uintptr_t key, uintptr_t sp)
{
    if (id < 0 || !tp_running() || tp_guard)
        return 0;
    if (!in_window())
        return 0;
    /* An active ancestor always has a higher frame address (the stack grows down): frames at
     * the same depth or deeper than the new one were skipped by longjmp or an exception. */
    if (sp && stack.depth > 0 && stack.f[stack.depth - 1].sp &&
        stack.f[stack.depth - 1].sp <= sp) {
        uint64_t t = tp_ticks();
        while (stack.depth > 0 && stack.f[stack.depth - 1].sp && stack.f[stack.depth - 1].sp <= sp)
            close_top(t, 0, 0, NULL, 1);
    }
    if (stack.depth >= MAX_DEPTH) {
        atomic_fetch_add_explicit(&overflow, 1, memory_order_relaxed);
        return 0;
    }
    struct frame *f = &stack.f[stack.depth];
    f->id = id;
    f->key = key;
    f->sp = sp;
    f->child = f->flops = f->bytes = 0;
    f->recursive = 0;
    f->node = tp_optree_on ? tp_optree_child(stack.depth ? stack.f[stack.depth - 1].node
                                                         : TP_OPTREE_NONE, id)
                           : TP_OPTREE_NONE;
    for (int i = 0; i < stack.depth; i++)
        if (stack.f[i].id == id) {
            f->recursive = 1;
            break;
        }
    stack.depth++;
    note_first();
    f->hooks0 = tp_cyg_hooks;
    f->t0 = tp_ticks();
    return 1;
}

void tp_op_end(int id, uintptr_t key, uintptr_t sp, uint64_t flops, uint64_t bytes,
               const struct tp_shape_key *shape)
{
    (void)sp;
    if (id < 0)
        return;
    if (stack.depth == 0) {
        if (tp_running() && in_window())
            atomic_fetch_add_explicit(&unpaired, 1, memory_order_relaxed);
        return;
    }
    uint64_t t = tp_ticks();
    int i = stack.depth - 1;
    while (i >= 0 && !(stack.f[i].id == id && stack.f[i].key == key))
        i--;
    if (i < 0) {
        /* outside a TPROF_SCHEDULE window the begin was not recorded either */
        if (in_window())
            atomic_fetch_add_explicit(&unpaired, 1, memory_order_relaxed);
        return;
    }
    while (stack.depth - 1 > i)
        close_top(t, 0, 0, NULL, 1);
    close_top(t, flops, bytes, shape, 0);
}

int tp_op_depth(void)
{
    return stack.depth;
}

int tp_ops_current(void)
{
    return stack.depth > 0 ? stack.f[stack.depth - 1].id : -1;
}

int tp_op_top_is(enum tp_op_source src)
{
    return stack.depth > 0 && recs[stack.f[stack.depth - 1].id].src == src;
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
        struct op_rec *r = &recs[stack.f[stack.depth - 1].id];
        atomic_fetch_add_explicit(&r->alloc_bytes, bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->alloc_count, 1, memory_order_relaxed);
    }
}

const char *tp_ops_name(int id)
{
    return id >= 0 && id < atomic_load(&nrecs) ? recs[id].name : NULL;
}

const char *tp_ops_kind(int id)
{
    return id >= 0 && id < atomic_load(&nrecs) ? recs[id].kind : NULL;
}

static void shape_desc(const struct tp_shape_key *k, char *out, size_t size);

int tp_ops_shape_desc(int id, int slot, char *out, size_t n)
{
    if (id < 0 || id >= atomic_load(&nrecs) || slot < 0 || slot >= MAX_SHAPES ||
        atomic_load(&recs[id].shapes[slot].used) != 2)
        return -1;
    shape_desc(&recs[id].shapes[slot].key, out, n);
    return 0;
}

/* ---- steps ---- */

static void record_step(uint64_t dur)
{
    uint64_t n = atomic_fetch_add(&step_count, 1);
    if (n < (uint64_t)tp_cfg.warmup)
        atomic_fetch_add(&step_warm, 1);
    else if (step_histo)
        tp_histo_add(step_histo, dur);
}

void tp_step_begin(void)
{
    if (!tp_running() || step_depth++ > 0)
        return;
    atomic_fetch_add(&step_index_started, 1);
    atomic_store(&step_running, 1);
    note_first();
    step_t0 = tp_ticks();
}

void tp_step_end(void)
{
    if (step_depth == 0 || --step_depth > 0 || !tp_running())
        return;
    atomic_store(&step_running, 0);
    /* step_index_started was bumped at begin: judge this step by its own index */
    uint64_t t = tp_ticks();
    if (step_recorded(atomic_load(&step_index_started) - 1))
        record_step(t - step_t0);
}

void tp_step_mark(void)
{
    if (!tp_running())
        return;
    uint64_t t = tp_ticks();
    uint64_t last = atomic_exchange(&step_last_mark, t);
    note_first();
    /* Every mark starts a step (so the ops after the first mark belong to step 0 and are in
     * its TPROF_SCHEDULE window), and every mark but the first ends the one before. */
    uint64_t started = atomic_fetch_add(&step_index_started, 1);
    if (last && started > 0 && step_recorded(started - 1))
        record_step(t - last);
}

/* ---- fork and report ---- */

/* The op-name lock across fork (state.c's handlers say in which order). */
void tp_ops_fork_prepare(void)
{
    pthread_mutex_lock(&intern_lock);
}

void tp_ops_fork_parent(void)
{
    pthread_mutex_unlock(&intern_lock);
}

void tp_ops_fork_child(void)
{
    pthread_mutex_init(&intern_lock, NULL);
    /* The child reports its own work: what the parent did before fork is the parent's. */
    int n = atomic_load(&nrecs);
    for (int i = 0; i < n; i++) {
        struct op_rec *r = &recs[i];
        struct tp_histo *h = tp_histo_new();
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
        memset(r->shapes, 0, sizeof r->shapes);
        if (h)
            r->histo = h; /* the parent's stays allocated in the child: never freed (P6) */
    }
    struct tp_histo *sh = tp_histo_new();
    if (sh)
        step_histo = sh;
    atomic_store(&step_count, 0);
    atomic_store(&step_warm, 0);
    atomic_store(&step_last_mark, 0);
    uint64_t t = tp_ticks();
    for (int i = 0; i < stack.depth; i++)
        stack.f[i].t0 = t, stack.f[i].child = 0;
}

static uint64_t to_ns(uint64_t ticks, double ratio)
{
    return (uint64_t)((double)ticks * ratio + 0.5);
}

static void scale_latency(struct tp_latency *l, double ratio)
{
    l->min = to_ns(l->min, ratio);
    l->p50 = to_ns(l->p50, ratio);
    l->p95 = to_ns(l->p95, ratio);
    l->p99 = to_ns(l->p99, ratio);
    l->max = to_ns(l->max, ratio);
    l->mean *= ratio;
    l->stddev *= ratio;
    l->p50_ci_lo *= ratio;
    l->p50_ci_hi *= ratio;
}

static char layout_word(char c)
{
    return c == 'R' ? 'R' : 'C';
}

/* "m=64 n=32 k=16 NN row", "m=100 n=50 T col", "m=10 n=20 T col left lower", "n=4096": only
 * what the op has (level-1 BLAS ops have a length and no layout). */
static void shape_desc(const struct tp_shape_key *k, char *out, size_t size)
{
    size_t u = 0;
#define PUT(...) u += (size_t)snprintf(out + u, u < size ? size - u : 0, __VA_ARGS__)
    if (k->m || k->layout)
        PUT("m=%lld ", (long long)k->m);
    PUT("n=%lld", (long long)k->n);
    if (k->k)
        PUT(" k=%lld", (long long)k->k);
    if (k->transb)
        PUT(" %c%c", k->transa ? k->transa : '-', k->transb);
    else if (k->transa)
        PUT(" %c", k->transa);
    if (k->layout)
        PUT(" %s", layout_word(k->layout) == 'R' ? "row" : "col");
    if (k->side)
        PUT(" %s", k->side == 'R' ? "right" : "left");
    if (k->uplo)
        PUT(" %s", k->uplo == 'L' ? "lower" : "upper");
#undef PUT
}

static void collect_shapes(struct op_rec *r, struct tp_op *o, double ratio)
{
    /* One look at which slots are ready: others may be filled while the report is made. */
    int ready[MAX_SHAPES], out_of[MAX_SHAPES], n = 0;
    for (int i = 0; i < MAX_SHAPES; i++) {
        ready[i] = atomic_load(&r->shapes[i].used) == 2;
        n += ready[i];
    }
    if (!n)
        return;
    o->shapes = calloc((size_t)n, sizeof *o->shapes);
    if (!o->shapes)
        return;
    for (int i = 0; i < MAX_SHAPES; i++) {
        if (!ready[i])
            continue;
        struct shape_rec *s = &r->shapes[i];
        int j = 0;
        while (j < i && !(ready[j] && same_shape(&r->shapes[j].key, &s->key)))
            j++;
        struct tp_shape *d;
        if (j < i) { /* a second slot of the same key (see add_shape) */
            d = &o->shapes[out_of[j]];
            out_of[i] = out_of[j];
        } else {
            char desc[96];
            out_of[i] = (int)o->nshapes;
            d = &o->shapes[o->nshapes++];
            d->m = s->key.m;
            d->n = s->key.n;
            d->k = s->key.k;
            d->transa = s->key.transa;
            d->transb = s->key.transb;
            d->layout = s->key.layout ? layout_word(s->key.layout) : 0;
            shape_desc(&s->key, desc, sizeof desc);
            d->desc = strdup(desc);
        }
        d->calls += atomic_load(&s->calls);
        d->total_ns += to_ns(atomic_load(&s->ticks), ratio);
        d->flops += atomic_load(&s->flops);
        d->bytes += atomic_load(&s->bytes);
    }
}

static double last_ratio;

double tp_ops_ns_per_tick(void)
{
    return last_ratio > 0 ? last_ratio : (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30);
}

void tp_ops_collect(struct tp_report *r)
{
    double ratio = (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30);
    last_ratio = ratio;
    int n = atomic_load(&nrecs);
    r->ops = calloc(n ? (size_t)n : 1, sizeof *r->ops);
    if (!r->ops)
        return;
    uint64_t shapes_dropped = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        struct op_rec *s = &recs[i];
        uint64_t calls = atomic_load(&s->calls);
        if (!calls)
            continue;
        struct tp_op *o = &r->ops[r->nops++];
        o->name = strdup(s->name);
        o->kind = strdup(s->kind);
        o->source = strdup(source_name(s->src));
        o->calls = calls;
        o->total_ns = to_ns(atomic_load(&s->total), ratio);
        o->self_ns = to_ns(atomic_load(&s->self), ratio);
        o->flops = atomic_load(&s->flops);
        o->bytes = atomic_load(&s->bytes);
        o->flops_known = atomic_load(&s->flops_known);
        o->warmup_calls = atomic_load(&s->warm_calls);
        o->warmup_ns = to_ns(atomic_load(&s->warm_ticks), ratio);
        o->alloc_bytes = atomic_load(&s->alloc_bytes);
        o->alloc_count = atomic_load(&s->alloc_count);
        tp_histo_summary(s->histo, &o->latency);
        scale_latency(&o->latency, ratio);
        collect_shapes(s, o, ratio);
        shapes_dropped += atomic_load(&s->shapes_dropped);
        skipped += atomic_load(&s->skipped);
    }
    if (step_histo && atomic_load(&step_count)) {
        struct tp_steps *st = &r->steps;
        st->name = strdup(tp_cfg.step ? tp_cfg.step : "tprof_step");
        st->count = atomic_load(&step_count);
        st->warmup = atomic_load(&step_warm);
        tp_histo_summary(step_histo, &st->latency);
        scale_latency(&st->latency, ratio);
        if (tp_cfg.sched_active >= 0) {
            st->window_first = tp_cfg.sched_wait + tp_cfg.sched_warmup;
            st->window_last = st->window_first + tp_cfg.sched_active - 1;
        }
    }
    if (tp_cfg.sched_active >= 0)
        tp_report_note(r, "TPROF_SCHEDULE=%d:%d:%d: ops and steps cover steps %d to %d only; the "
                          "heap figures cover the whole run",
                       tp_cfg.sched_wait, tp_cfg.sched_warmup, tp_cfg.sched_active,
                       tp_cfg.sched_wait + tp_cfg.sched_warmup,
                       tp_cfg.sched_wait + tp_cfg.sched_warmup + tp_cfg.sched_active - 1);
    if (atomic_load(&dropped_ops)) {
        r->partial = 1;
        tp_report_note(r, "op table full (TPROF_MAX_OPS=%d): ops with other names were not "
                          "recorded (%llu refused lookups)", cap,
                       (unsigned long long)atomic_load(&dropped_ops));
    }
    if (atomic_load(&overflow)) {
        r->partial = 1;
        tp_report_note(r, "%llu op calls nested deeper than %d were not timed",
                       (unsigned long long)atomic_load(&overflow), MAX_DEPTH);
    }
    if (skipped)
        tp_report_note(r, "%llu op calls were left by longjmp or an exception; they were closed "
                          "when that was noticed", (unsigned long long)skipped);
    if (atomic_load(&unpaired))
        tp_report_note(r, "%llu op ends had no matching begin and were dropped",
                       (unsigned long long)atomic_load(&unpaired));
    if (shapes_dropped)
        tp_report_note(r, "%llu calls had shapes beyond the %d kept per op", (unsigned long long)shapes_dropped,
                       MAX_SHAPES);
}
