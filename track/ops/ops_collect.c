/* The report's ops, steps and op-time stacks from the tables ops.c and optree.c record into.
 *
 * Ticks become nanoseconds here, with one ratio for the whole report, so that the tables of the
 * same report add up exactly. Everything that reads op names, kinds or shapes for the report is
 * here rather than in ops.c, which only records: that keeps the op core below everything that
 * reports on it. Runs once per report, under the recursion guard; it allocates with the
 * program's malloc like the rest of the report model. */
#include "track/ops/ops.h"

#include "common/workspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/histo/histo.h"
#include "report/analyze/analyze.h"
#include "report/report.h"
#include "track/runtime.h"
#include "track/steps/steps.h"
#include "track/out/out.h"

#define MAX_SHAPES TP_OPS_MAX_SHAPES

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
 * what the op has (level-1 BLAS ops have a length and no layout); a ggml node's with its batch
 * and its sources' data types: "m=4096 n=1 k=4096 (q4_0, f32)". */
static void shape_desc(const struct tp_shape_key *k, char *out, size_t size)
{
    size_t u = 0;
    if (k->named) {
        int64_t v[TP_WORK_MAX_VARS] = {k->m,       k->n,       k->k,       k->more[0],
                                       k->more[1], k->more[2], k->more[3], k->more[4]};
        tp_work_shape(k->named, v, out, size);
        return;
    }
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
    if (k->dtype[0] && k->more[0] > 1)
        PUT(" batch=%lld", (long long)k->more[0]);
    if (k->dtype[0])
        PUT(" (%s%s%s)", k->dtype[0], k->dtype[1] ? ", " : "", k->dtype[1] ? k->dtype[1] : "");
#undef PUT
}

int tp_ops_shape_desc(int id, int slot, char *out, size_t n)
{
    if (id < 0 || id >= atomic_load(&tp_op_nrecs) || slot < 0 || slot >= MAX_SHAPES ||
        atomic_load(&tp_op_rec(id)->shapes[slot].used) != 2)
        return -1;
    shape_desc(&tp_op_rec(id)->shapes[slot].key, out, n);
    return 0;
}

static void collect_shapes(struct tp_op_rec *r, struct tp_op *o, double ratio)
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
        struct tp_shape_rec *s = &r->shapes[i];
        int j = 0;
        while (j < i && !(ready[j] && tp_shape_same(&r->shapes[j].key, &s->key)))
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
        d->calls += TP_OP_SUM(s, calls);
        d->total_ns += to_ns(TP_OP_SUM(s, ticks), ratio);
        d->flops += TP_OP_SUM(s, flops);
        d->bytes += TP_OP_SUM(s, bytes);
    }
}

static double last_ratio;

double tp_ops_ns_per_tick(void)
{
    return last_ratio > 0 ? last_ratio : (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30);
}

/* An op's wall-clock ticks (track/ops/opwall.h), corrected for the hooks' cost as its thread time
 * was: the same fraction comes out (on one thread the two are then equal), and never more than
 * its thread time, which the busy periods can only exceed by a clock reading's jitter. */
static uint64_t wall_ticks(const struct tp_op_rec *s)
{
    uint64_t w = TP_OP_SUM(s, wall), t = TP_OP_SUM(s, total), h = TP_OP_SUM(s, hook_total);
    if (h && t + h > t)
        w = (uint64_t)((unsigned __int128)w * t / (t + h));
    return w < t ? w : t;
}

/* An op's self wall-clock time: its wall-clock time in the proportion of its self time to its
 * total. Exact on one thread (wall is then total) and for an op with nothing nested (self is
 * total); otherwise it takes the ops nested in it to overlap across threads as it does. */
static uint64_t self_wall_ticks(const struct tp_op_rec *s, uint64_t wall)
{
    uint64_t t = TP_OP_SUM(s, total), self = TP_OP_SUM(s, self);
    if (!t || self >= t)
        return wall;
    return (uint64_t)((unsigned __int128)wall * self / t);
}

/* An op's latency: its owner's histogram, with the other threads' added in a copy when they
 * ended calls too (track/ops/ops_table.c). */
static void latency(const struct tp_op_rec *s, struct tp_latency *out)
{
    const struct tp_histo *sh = atomic_load(&s->sh_histo);
    struct tp_histo *both = sh && tp_histo_count(sh) ? tp_histo_new() : NULL;
    if (!both) {
        tp_histo_summary(s->histo, out);
        return;
    }
    tp_histo_merge(both, s->histo);
    tp_histo_merge(both, sh);
    tp_histo_summary(both, out);
    tp_histo_destroy(both);
}

/* An op's work and waiting (report.h's struct tp_op says what each figure is). */
static void collect_wait(const struct tp_op_rec *s, struct tp_op *o, double ratio)
{
    uint64_t period = tp_sample_period_ns(), all = atomic_load(&s->cpu_samples);
    uint64_t spin = atomic_load(&s->spin_samples), inwait = atomic_load(&s->inwait_samples);
    char kinds[128];
    o->wait_blocked_ns = to_ns(atomic_load(&s->wait_ticks), ratio);
    tp_wait_kind_names(atomic_load(&s->wait_kinds), kinds, sizeof kinds);
    o->wait_kinds = kinds[0] ? strdup(kinds) : NULL;
    if (period) {
        o->cpu_ns = all * period;
        o->cpu_method = strdup("samples");
        o->wait_spin_ns = spin * period;
        o->wait_spin_method = strdup("samples");
        o->work_ns = all > spin + inwait ? (all - spin - inwait) * period : 0;
        o->work_method = strdup("samples");
    } else {
        o->work_ns = o->total_ns > o->wait_blocked_ns ? o->total_ns - o->wait_blocked_ns : 0;
        o->work_method = strdup("time_less_waits");
    }
    o->wait_ns = o->wait_blocked_ns + o->wait_spin_ns;
}

/* One op that has calls, into o. */
static void collect_op(int id, struct tp_op *o, uint64_t calls, double ratio)
{
    struct tp_op_rec *s = tp_op_rec(id);
    o->name = strdup(s->name);
    o->kind = strdup(s->kind);
    o->source = strdup(source_name(s->src));
    o->calls = calls;
    o->total_ns = to_ns(TP_OP_SUM(s, total), ratio);
    o->self_ns = to_ns(TP_OP_SUM(s, self), ratio);
    uint64_t wall = wall_ticks(s);
    o->wall_ns = to_ns(wall, ratio);
    o->self_wall_ns = to_ns(self_wall_ticks(s, wall), ratio);
    o->flops = TP_OP_SUM(s, flops);
    o->bytes = TP_OP_SUM(s, bytes);
    o->flops_known = atomic_load(&s->flops_known);
    o->warmup_calls = TP_OP_SUM(s, warm_calls);
    o->warmup_ns = to_ns(TP_OP_SUM(s, warm_ticks), ratio);
    o->alloc_bytes = atomic_load(&s->alloc_bytes);
    o->alloc_count = atomic_load(&s->alloc_count);
    int up = atomic_load(&s->parent);
    o->parent = up > 0 && tp_op_rec(up - 1) ? strdup(tp_op_rec(up - 1)->name) : NULL;
    latency(s, &o->latency);
    scale_latency(&o->latency, ratio);
    collect_shapes(s, o, ratio);
    collect_wait(s, o, ratio);
    o->demoted = tp_demote_slot(id) != 0;
    o->counted_calls = tp_demote_counted(id);
    int bounded;
    o->counted_est_ns = to_ns(tp_demote_est_ticks(id, &bounded), ratio);
    if (o->demoted)
        o->counted_est_method =
            strdup(bounded ? "median, bounded by the enclosing ops' self time" : "median");
    o->calls += o->counted_calls;
}

static void collect_steps(struct tp_report *r, double ratio)
{
    struct tp_steps *st = &r->steps;
    st->seen = tp_steps_seen();
    if (tp_cfg.sched_active >= 0) {
        st->window_first = tp_cfg.sched_wait + tp_cfg.sched_warmup;
        st->window_last = st->window_first + tp_cfg.sched_active - 1;
    }
    if (st->seen)
        st->name = strdup(tp_steps_function() ? tp_steps_function() : "tprof_step");
    if (!tp_step_histo || !atomic_load(&tp_step_count))
        return;
    st->count = atomic_load(&tp_step_count);
    st->warmup = atomic_load(&tp_step_warm);
    tp_histo_summary(tp_step_histo, &st->latency);
    scale_latency(&st->latency, ratio);
    struct tp_steps_cpu sc;
    tp_steps_cpu(&sc);
    st->wall_ns = sc.wall_ns;
    st->cpu_ns = sc.cpu_ns;
    st->thread_cpu_ns = sc.thread_known ? (int64_t)sc.thread_cpu_ns : -1;
    st->runq_ns = sc.runq_known ? (int64_t)sc.runq_ns : -1;
}

/* The ops a full table gave no id: why it was full, how many names, the first of them. */
static void note_lost(struct tp_report *r)
{
    struct tp_ops_lost l;
    tp_ops_lost(&l);
    char why[96], names[512] = "";
    if (l.limit == TP_OPS_MAX_OPS)
        snprintf(why, sizeof why, "TPROF_MAX_OPS=%d", l.ops);
    else if (l.limit == TP_OPS_BUDGET)
        snprintf(why, sizeof why, "%d ops; with the call sites, TPROF_MEMORY_BUDGET=%llu bytes",
                 l.ops, (unsigned long long)tp_ops_budget());
    else
        snprintf(why, sizeof why, "%d ops; no memory for more", l.ops);
    size_t at = 0;
    for (int i = 0; i < l.nfirst && at < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : ": ",
                               l.first[i] ? l.first[i] : "?");
    if (l.names > (uint64_t)l.nfirst && at < sizeof names)
        snprintf(names + at, sizeof names - at, ", ...");
    r->partial = 1;
    tp_report_note(r, "op table full (%s): %s%llu ops were not recorded (%llu refused lookups)%s",
                   why, l.names_inexact ? "at least " : "", (unsigned long long)l.names,
                   (unsigned long long)l.lookups, names);
}

/* What was not recorded, or not as it happened, said in the report. */
/* The TPROF_SCHEDULE window against the steps the run made: covered, cut short by the end of
 * the run, or never reached (then nothing was recorded, and the note says which window would
 * fit: the same one moved to the run's last steps). */
static void schedule_note(struct tp_report *r)
{
    int w = tp_cfg.sched_wait, u = tp_cfg.sched_warmup, a = tp_cfg.sched_active;
    if (a < 0)
        return;
    unsigned long long seen = r->steps.seen, first = (unsigned long long)w + (unsigned)u,
                       last = first + (unsigned)a - 1;
    if (seen > last) {
        tp_report_note(r,
                       "TPROF_SCHEDULE=%d:%d:%d: ops and steps cover steps %llu to %llu only; the "
                       "heap figures cover the whole run",
                       w, u, a, first, last);
    } else if (seen > first) {
        tp_report_note(r,
                       "TPROF_SCHEDULE=%d:%d:%d: the run ended after %llu steps, inside the window "
                       "(steps %llu to %llu): ops and steps cover steps %llu to %llu only; the "
                       "heap figures cover the whole run",
                       w, u, a, seen, first, last, first, seen - 1);
    } else if (seen == 0) {
        tp_report_note(r,
                       "TPROF_SCHEDULE=%d:%d:%d: the run made no step (a TPROF_STEP call or a "
                       "tprof_step() mark), so its window (steps %llu to %llu) was never reached "
                       "and no op was recorded; the heap figures cover the whole run",
                       w, u, a, first, last);
    } else {
        unsigned long long fu = (unsigned)u, fa = (unsigned)a;
        if (seen < fu + fa) {
            fu = 0;
            fa = seen;
        }
        tp_report_note(r,
                       "TPROF_SCHEDULE=%d:%d:%d: the run ended after %llu steps (0 to %llu), "
                       "before the window (steps %llu to %llu): no op or step was recorded; a "
                       "window within the run records them, e.g. TPROF_SCHEDULE=%llu:%llu:%llu "
                       "(its last steps); the heap figures cover the whole run",
                       w, u, a, seen, seen - 1, first, last, seen - fu - fa, fu, fa);
    }
}

static void collect_notes(struct tp_report *r, uint64_t skipped, uint64_t shapes_dropped)
{
    schedule_note(r);
    if (atomic_load(&tp_ops_dropped))
        note_lost(r);
    if (atomic_load(&tp_ops_overflow)) {
        r->partial = 1;
        tp_report_note(r, "%llu op calls nested deeper than %d were not timed",
                       (unsigned long long)atomic_load(&tp_ops_overflow), TP_OPS_MAX_DEPTH);
    }
    if (skipped)
        tp_report_note(r,
                       "%llu op calls were left by longjmp or an exception; they were closed "
                       "when that was noticed",
                       (unsigned long long)skipped);
    if (atomic_load(&tp_ops_unpaired))
        tp_report_note(r, "%llu op ends had no matching begin and were dropped",
                       (unsigned long long)atomic_load(&tp_ops_unpaired));
    if (shapes_dropped)
        tp_report_note(r, "%llu calls had shapes beyond the %d kept per op",
                       (unsigned long long)shapes_dropped, MAX_SHAPES);
}

int tp_ops_any_work(void)
{
    if (tp_step_histo && atomic_load(&tp_step_count))
        return 1;
    int n = atomic_load(&tp_op_nrecs);
    for (int i = 0; i < n; i++)
        if (tp_op_calls(tp_op_rec(i)))
            return 1;
    return 0;
}

void tp_ops_collect(struct tp_report *r)
{
    double ratio = (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30);
    last_ratio = ratio;
    int n = atomic_load(&tp_op_nrecs);
    r->ops = calloc(n ? (size_t)n : 1, sizeof *r->ops);
    if (!r->ops)
        return;
    uint64_t shapes_dropped = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        struct tp_op_rec *s = tp_op_rec(i);
        uint64_t calls = tp_op_calls(s);
        if (!calls)
            continue;
        collect_op(i, &r->ops[r->nops++], calls, ratio);
        shapes_dropped += atomic_load(&s->shapes_dropped);
        skipped += atomic_load(&s->skipped);
    }
    collect_steps(r, ratio);
    collect_notes(r, skipped, shapes_dropped);
    tp_demote_collect(r);
}

void tp_optree_collect(struct tp_report *r)
{
    if (!tp_optree_on)
        return;
    double ratio = tp_ops_ns_per_tick();
    uint32_t slots = tp_optree_slots();
    struct tp_optree_node nd;
    size_t n = 0;
    for (uint32_t i = 0; i < slots; i++)
        n += tp_optree_read(i, &nd) && nd.calls;
    r->opstacks_dropped = tp_optree_dropped();
    if (!n)
        return;
    /* An op's paths' self times add up to its own self time to the nanosecond: each path gets
     * the step of its op's running sum of ticks, rounded, not its own ticks rounded (which would
     * be up to half a nanosecond off per path). */
    int nop = 0;
    for (uint32_t i = 0; i < slots; i++)
        if (tp_optree_read(i, &nd) && nd.calls && nd.op >= nop)
            nop = nd.op + 1;
    uint64_t *run = calloc((size_t)nop + 1, sizeof *run);
    r->opstacks = run ? calloc(n, sizeof *r->opstacks) : NULL;
    if (!r->opstacks) {
        free(run);
        return;
    }
    for (uint32_t i = 0; i < slots && r->nopstacks < n; i++) {
        if (!tp_optree_read(i, &nd) || !nd.calls)
            continue;
        /* Walk up to the outermost op; depth is bounded by ops.c's stack (128). */
        int path[160], depth = 0;
        struct tp_optree_node up = nd;
        for (int at = (int)i; at >= 0 && depth < 160; depth++) {
            tp_optree_read((uint32_t)at, &up);
            path[depth] = up.op;
            at = up.parent;
        }
        struct tp_opstack *s = &r->opstacks[r->nopstacks];
        s->ops = calloc((size_t)depth, sizeof *s->ops);
        if (!s->ops)
            continue;
        for (int d = 0; d < depth; d++) {
            const char *name = tp_ops_name(path[depth - 1 - d]);
            s->ops[d] = strdup(name ? name : "?");
        }
        s->depth = (size_t)depth;
        s->calls = nd.calls;
        s->flops = nd.flops;
        s->total_ns = to_ns(nd.total, ratio);
        uint64_t *sum = &run[nd.op >= 0 && nd.op < nop ? nd.op : nop];
        s->self_ns = to_ns(*sum + nd.self, ratio) - to_ns(*sum, ratio);
        *sum += nd.self;
        r->nopstacks++;
    }
    free(run);
    if (r->opstacks_dropped)
        tp_report_note(r,
                       "%llu op calls nested under a full op-stack table are left out of the "
                       "folded stacks",
                       (unsigned long long)r->opstacks_dropped);
}
