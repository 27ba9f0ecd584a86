/* From raw figures to answers: roofline per op, the verdict, Amdahl projections.
 *
 * Shares are of the program's time: its wall time, or for a report merged from N processes
 * N times the longest wall time (the ranks run side by side, and an op's times are summed over
 * them). An op's self time is summed over threads: two threads in it for a second count two
 * seconds, and its share of the wall time can pass 100%. What the program would get back if the
 * op took no time is its self wall-clock time (self_wall_ns: the time at least one thread was
 * inside it, in the proportion of its self time), never more than the program's time; the verdict and Amdahl use that share. A
 * report of a tprof before wall-clock times (self_wall_ns 0) is read as one thread's: its self
 * time, capped at the program's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/names/names.h"
#include "report/analyze/analyze.h"
#include "report/analyze/analyze_nested.h"
#include "report/peaks/peaks.h"
#include "report/render/render.h"
#include "report/units.h"

#define AMDAHL_TOP 10 /* TPROF_TOP's default: the analysis runs without a configuration */

static const char OVERLAP_NOTE[] =
    "ops ran on several threads at once: their self times, summed over threads, add up to more "
    "than the wall time (self%); the verdict and Amdahl use wall-clock time, which counts each "
    "moment once (wall%)";

static const char *nz(const char *s)
{
    return s ? s : "?";
}

/* An op's name as the report says it: a ggml node function by its op (tp_name_short). */
static const char *op_name(const char *s)
{
    return tp_name_short(nz(s));
}

/* "ggml's " before a ggml node's op where a sentence first names it. */
static const char *whose(const char *s)
{
    return tp_name_shortened(s) ? "ggml's " : "";
}

/* a / b, or 0 where that is not a finite number (b == 0, NaN or infinite inputs). */
static double ratio(double a, double b)
{
    double q = a / b;
    return b > 0 && isfinite(q) ? q : 0;
}

static double finite_or0(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

/* The op's self wall-clock time, within the program's time (see the top of the file). */
static uint64_t self_wall(const struct tp_op *o, uint64_t wall_ns)
{
    uint64_t w = o->self_wall_ns ? o->self_wall_ns : o->self_ns;
    return w < wall_ns ? w : wall_ns;
}

void tp_op_roofline(struct tp_op *o, double peak_gflops, double peak_gbps, uint64_t wall_ns)
{
    peak_gflops = finite_or0(peak_gflops);
    peak_gbps = finite_or0(peak_gbps);
    /* FLOP/ns == GFLOP/s, over the op's wall-clock time: threads that run it together (a ggml
     * node on each of ggml's threads, an op each thread of an OpenMP team calls) did its FLOPs in
     * that time, not in their summed time; on one thread the two agree. */
    uint64_t t = o->wall_ns && o->wall_ns < o->total_ns ? o->wall_ns : o->total_ns;
    o->gflops = ratio((double)o->flops, (double)t);
    o->intensity = ratio((double)o->flops, (double)o->bytes);
    o->share = ratio((double)o->total_ns, (double)wall_ns);
    o->self_share = ratio((double)o->self_ns, (double)wall_ns);
    o->self_wall_share = ratio((double)self_wall(o, wall_ns), (double)wall_ns);
    free(o->bound);
    o->attainable_gflops = 0;
    o->efficiency = 0;
    if (o->flops == 0 && o->bytes > 0 && peak_gbps > 0) {
        /* data movement (im2col): no FLOPs to rate, so its efficiency is the bandwidth it
         * reached against the machine's, as for any memory-bound op (GFLOP/s over AI x GB/s) */
        o->bound = strdup("memory");
        o->efficiency = ratio((double)o->bytes, (double)t) / peak_gbps;
        return;
    }
    if (o->flops == 0 || o->bytes == 0 || peak_gflops == 0 || peak_gbps == 0) {
        o->bound = strdup("unknown");
        return;
    }
    double ridge = peak_gflops / peak_gbps;
    double mem_roof = o->intensity * peak_gbps;
    o->attainable_gflops = mem_roof < peak_gflops ? mem_roof : peak_gflops;
    o->bound = strdup(o->intensity < ridge ? "memory" : "compute");
    o->efficiency = ratio(o->gflops, o->attainable_gflops);
}

double tp_amdahl(double share, double factor)
{
    if (!(share > 0) || !(factor > 0))
        return 1;
    /* A wall-clock share is at most 1; at 1 the op ran all the time, and taking no time would
     * leave no time at all: no bound, said as 0 rather than as a huge made-up number. */
    if (share >= 1)
        return isinf(factor) ? 0 : factor;
    if (isinf(factor))
        return 1 / (1 - share);
    return 1 / ((1 - share) + share / factor);
}

/* By wall-clock share (what the program would get back), then thread time, then name. */
static int by_self(const void *a, const void *b)
{
    const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
    if (x->self_wall_share != y->self_wall_share)
        return x->self_wall_share < y->self_wall_share ? 1 : -1;
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static void clear_verdict(struct tp_verdict *v)
{
    free(v->op);
    free(v->bound);
    free(v->text);
    free(v->cpu_text);
    free(v->wait_op);
    free(v->wait_text);
    for (size_t i = 0; i < v->namdahl; i++)
        free(v->amdahl[i].op);
    free(v->amdahl);
    memset(v, 0, sizeof *v);
}

/* A site in words: "function (file:line)" or "module+0xoff"; behind an allocation wrapper
 * (xmalloc, ex_alloc...), which says little, its caller "via" the wrapper. */
static void site_name(const struct tp_site *s, char *out, size_t n)
{
    if (!s || s->nframes == 0) {
        snprintf(out, n, "a site without a stack");
        return;
    }
    /* the program's line, past inline code of system headers */
    size_t i = tp_site_first_own(s);
    const char *f0 = s->frames[i].function;
    if (f0 && strcasestr(f0, "alloc") && s->nframes > i + 1) {
        char caller[200];
        tp_fmt_frame(&s->frames[i + 1], caller, sizeof caller);
        snprintf(out, n, "%.200s via %.50s", caller, f0);
        return;
    }
    tp_fmt_frame(&s->frames[i], out, n);
}

/* "At exit, program: 3.00 MiB in 1 block leaked; system libraries keep 41.6 KiB." */
static void leak_story(const struct tp_memory *m, struct tp_buf *t)
{
    char a[32];
    struct tp_leak_split ls;
    tp_leak_split(m, &ls);
    /* a report of the sampled heap: the split comes from the sites, which are estimates */
    const char *est = m->sampling.mean_bytes ? " (estimated from samples): about" : ":";
    if (ls.program_bytes)
        tp_buf_printf(t, " At exit, program%s %s in %llu block%s leaked", est,
                      tp_fmt_bytes(ls.program_bytes, a, sizeof a),
                      (unsigned long long)ls.program_allocs, ls.program_allocs == 1 ? "" : "s");
    else
        tp_buf_puts(t, " At exit, program: nothing leaked");
    if (ls.interpreter_bytes)
        tp_buf_printf(t, "; the interpreter keeps %s (its objects and modules at exit)",
                      tp_fmt_bytes(ls.interpreter_bytes, a, sizeof a));
    if (ls.system_bytes)
        tp_buf_printf(t, "; system libraries keep %s", tp_fmt_bytes(ls.system_bytes, a, sizeof a));
    if (ls.suppressed_bytes)
        tp_buf_printf(t, "; %s suppressed (TPROF_SUPPRESS)",
                      tp_fmt_bytes(ls.suppressed_bytes, a, sizeof a));
    tp_buf_putc(t, '.');
}

/* A site with bytes at the peak, as the verdict would name it. */
struct named_site {
    const struct tp_site *s;
    char name[300];
};

static int by_class_then_name(const void *x, const void *y)
{
    const struct named_site *a = x, *b = y;
    if (a->s->system != b->s->system)
        return a->s->system ? 1 : -1;
    return strcmp(a->name, b->name);
}

/* The program's own line holding the most at the peak (*bytes), else a system library's: their
 * start-up allocations (a GUI toolkit's type tables, an image library's dictionaries) can be
 * larger and say nothing about the model. A line is every site the verdict names alike (the same
 * line reached inlined and not, or through other callers, is a site each time, and the verdict
 * speaks of the line). *sys_bytes: a system library's largest line, when the program's is
 * named. Without memory for the names, the largest single sites. */
static const struct tp_site *top_line(const struct tp_memory *m, uint64_t *bytes,
                                      uint64_t *sys_bytes)
{
    const struct tp_site *top[2] = {NULL, NULL};
    uint64_t best[2] = {0, 0};
    struct named_site *v = m->nsites ? malloc(m->nsites * sizeof *v) : NULL;
    size_t n = 0;
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        if (!s->live_at_peak_bytes)
            continue;
        if (!v) {
            if (s->live_at_peak_bytes > best[!!s->system]) {
                best[!!s->system] = s->live_at_peak_bytes;
                top[!!s->system] = s;
            }
            continue;
        }
        v[n].s = s;
        site_name(s, v[n].name, sizeof v[n].name);
        n++;
    }
    if (n)
        qsort(v, n, sizeof *v, by_class_then_name);
    for (size_t i = 0; i < n;) {
        uint64_t sum = 0;
        size_t j = i;
        for (; j < n && !by_class_then_name(&v[i], &v[j]); j++)
            sum = sum > UINT64_MAX - v[j].s->live_at_peak_bytes ? UINT64_MAX
                                                                : sum + v[j].s->live_at_peak_bytes;
        int k = !!v[i].s->system;
        if (sum > best[k]) {
            best[k] = sum;
            top[k] = v[i].s;
        }
        i = j;
    }
    free(v);
    int k = top[0] ? 0 : 1;
    *bytes = best[k];
    *sys_bytes = k == 0 ? best[1] : 0;
    return top[k];
}

static void memory_story(const struct tp_report *r, struct tp_buf *t)
{
    const struct tp_memory *m = &r->memory;
    char a[32], b[32], where[300];
    if (m->peak_bytes == 0 && m->allocs == 0) {
        tp_buf_puts(t, " No heap allocation was seen.");
        tp_ledger_story(m, t);
        return;
    }
    tp_fmt_bytes(m->peak_bytes, a, sizeof a);
    uint64_t top_bytes, sys_bytes;
    const struct tp_site *top = top_line(m, &top_bytes, &sys_bytes);
    tp_buf_printf(t, " The heap peaks at %s", a);
    if (m->peak_op)
        tp_buf_printf(t, " inside %s", m->peak_op);
    if (top) {
        site_name(top, where, sizeof where);
        tp_fmt_bytes(top_bytes, b, sizeof b);
        /* In a merged report the sites are summed over processes but the peak is the largest
         * process's: "of it" would not hold. */
        if (top_bytes <= m->peak_bytes)
            tp_buf_printf(t, "; %s%s of it from %s", m->sampling.mean_bytes ? "an estimated " : "",
                          b, where);
        else
            tp_buf_printf(t, "; the site holding the most is %s, with %s at the peak%s", where, b,
                          r->merged_processes > 1 ? " (summed over the processes)" : "");
        if (sys_bytes > top_bytes) {
            char c[32];
            tp_buf_printf(t, " (a system library's own allocation holds more: %s)",
                          tp_fmt_bytes(sys_bytes, c, sizeof c));
        }
    }
    tp_buf_putc(t, '.');
    if (m->persistent_bytes || m->transient_bytes) {
        const char *u = tp_lifetime_noun(m);
        tp_fmt_bytes(m->persistent_bytes, a, sizeof a);
        tp_fmt_bytes(m->transient_bytes, b, sizeof b);
        /* Lifetimes only: what the blocks are (weights, activations) is not known here, and a
         * program that builds everything before its first op would be told its activations
         * are parameters. With op calls as the unit, nothing transient and no op that allocated
         * anything, every block is persistent for the same reason, which is the one to say. */
        int none_in_ops =
            m->transient_bytes == 0 && m->lifetime_unit && strcmp(m->lifetime_unit, "op_call") == 0;
        for (size_t i = 0; none_in_ops && i < r->nops; i++)
            none_in_ops = r->ops[i].alloc_bytes == 0;
        if (none_in_ops)
            tp_buf_printf(t,
                          " Of the peak, %s%s is persistent (allocated outside every op) and %s "
                          "transient.",
                          m->sampling.mean_bytes ? "an estimated " : "", a, b);
        else
            tp_buf_printf(t,
                          " Of the peak, %s%s is persistent (outlives the %s that allocated it) "
                          "and %s transient (freed within its %s).",
                          m->sampling.mean_bytes ? "an estimated " : "", a, u, b, u);
    }
    tp_ledger_story(m, t);
    if (m->live_at_exit_bytes)
        leak_story(m, t);
}

/* A percentage in words: "71%", "<1%" rather than a misleading "0%". */
static char *pct(double frac, char *out, size_t n)
{
    double p = isfinite(frac) && frac > 0 ? 100 * frac : 0;
    if (p > 0 && p < 0.5)
        snprintf(out, n, "<1%%");
    else
        snprintf(out, n, "%.0f%%", p);
    return out;
}

/* No op because the TPROF_SCHEDULE window was never reached: the program may well have had ops,
 * timed only inside the window. 1 when said. */
static int unreached_window(const struct tp_steps *st, struct tp_buf *t)
{
    if (st->window_first < 0 || st->seen > (uint64_t)st->window_first)
        return 0;
    if (st->seen)
        tp_buf_printf(t,
                      "No op or step was recorded: the run ended after %llu steps, before the "
                      "TPROF_SCHEDULE window (steps %lld to %lld), and ops are timed only inside "
                      "it (a note gives a window that fits).",
                      (unsigned long long)st->seen, (long long)st->window_first,
                      (long long)st->window_last);
    else
        tp_buf_printf(t,
                      "No op or step was recorded: the run made no step, so the TPROF_SCHEDULE "
                      "window (steps %lld to %lld) was never reached, and ops are timed only "
                      "inside it.",
                      (long long)st->window_first, (long long)st->window_last);
    return 1;
}

/* The run's CPU samples, what the verdict's shares are of (a report without the total: those
 * outside every op). */
static uint64_t run_samples(const struct tp_report *r)
{
    return r->samples.total ? r->samples.total : r->samples.outside_ops;
}

/* A report without ops: why there are none and what to do about it, where the sampled time
 * went, and the share of it that spun in an OpenMP runtime. */
static void no_ops_story(const struct tp_report *r, struct tp_buf *t)
{
    if (unreached_window(&r->steps, t))
        return;
    tp_buf_puts(t, "No op was seen (no BLAS call, nothing matching TPROF_OPS, no annotated "
                   "region): this report covers the heap only.");
    size_t worked = 0;
    for (size_t k = 0; k < r->noutside_ops; k++)
        worked += tp_advice_works(&r->outside_ops[k]);
    if (worked) {
        tp_buf_puts(t, " The time goes mostly to ");
        tp_advice_names(r, t);
        tp_buf_putc(t, '.');
        tp_advice_outside(r, t);
    } else if (r->noutside_ops) {
        tp_advice_outside(r, t); /* threads waiting only */
    } else {
        tp_buf_puts(t, " To time ops: call BLAS or the model's library as a shared library, "
                       "build with -finstrument-functions and name functions in TPROF_OPS, or "
                       "mark regions with tprof.h.");
    }
    if (tp_outside_spin_said(&r->samples))
        tp_buf_printf(t,
                      " %.0f%% of the run's %llu CPU samples were spinning in an OpenMP "
                      "runtime: waiting for other threads, not work.",
                      100.0 * (double)r->samples.outside_spin / (double)run_samples(r),
                      (unsigned long long)run_samples(r));
}

/* The program's time less each op's wall-clock time: for the story's "most of the time is spent
 * outside every op", a lower bound of the time no op ran. Not the per-thread sum, in which an
 * idle pool worker counts its whole life outside every op (OpenBLAS's: half of a CNN's threads'
 * time, where the ops took nearly all of the program's). */
static uint64_t program_outside(const struct tp_report *r, uint64_t denom)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < r->nops; i++) {
        uint64_t w = self_wall(&r->ops[i], denom);
        sum = sum > UINT64_MAX - w ? UINT64_MAX : sum + w;
    }
    /* tprof's hooks inside the ops came out of their times: they are tprof's, not time outside */
    sum = sum > UINT64_MAX - r->program.hooks_ns ? UINT64_MAX : sum + r->program.hooks_ns;
    return denom > sum ? denom - sum : 0;
}

/* " and runs at 50% of what this machine can do at its arithmetic intensity (compute-bound)",
 * or why its bound is unknown. */
static void bound_phrase(const struct tp_report *r, const struct tp_op *d, struct tp_buf *t)
{
    char p[32];
    if (d->bound && strcmp(d->bound, "unknown") != 0) {
        char why[256];
        tp_peaks_over(&r->machine, d->bound, 0, why, sizeof why);
        if (tp_peaks_over_shown(d->efficiency))
            tp_buf_printf(t,
                          " and runs faster than this machine's peaks allow (%s of them at its "
                          "arithmetic intensity, %s-bound): %s",
                          pct(d->efficiency, p, sizeof p), d->bound, why);
        else if (!d->flops)
            tp_buf_printf(t,
                          " and only moves data, at %s of this machine's memory bandwidth "
                          "(memory-bound%s)",
                          pct(d->efficiency, p, sizeof p), tp_peaks_busy(&r->machine));
        else
            tp_buf_printf(t,
                          " and runs at %s of what this machine can do at its arithmetic "
                          "intensity (%s-bound%s)",
                          pct(d->efficiency, p, sizeof p), d->bound, tp_peaks_busy(&r->machine));
    } else if (!d->flops || !d->bytes) {
        tp_buf_puts(t, " (its FLOPs or bytes are unknown, so its bound is too)");
    } else {
        tp_buf_puts(t, " (the machine's peaks are unknown, so its bound is too)");
    }
}

static void ops_story(const struct tp_report *r, struct tp_op **order, uint64_t denom,
                      struct tp_buf *t)
{
    const struct tp_verdict *v = &r->verdict;
    if (r->nops == 0) {
        no_ops_story(r, t);
        return;
    }
    const struct tp_op *d = order[0];
    if (d->self_ns == 0) {
        tp_buf_printf(t, "%zu op%s ran but took no measurable time.", r->nops,
                      r->nops == 1 ? "" : "s");
        return;
    }
    char p[32];
    if (denom == 0) {
        char s[32];
        tp_buf_printf(t,
                      "%s%s takes the most time of all ops (%s of self time); the wall time is "
                      "unknown, so its share is too.",
                      whose(d->name), op_name(d->name), tp_fmt_ns(d->self_ns, s, sizeof s));
        return;
    }
    /* The time in an op without FLOPs, called by one with them: the verdict is the caller's,
     * on its total time, so that its FLOP rate and bound are said. */
    const struct tp_op *up = tp_flops_parent(r, d), *nested = d;
    double share = d->self_wall_share;
    if (up) {
        char q[32];
        d = up;
        share = tp_total_share(up, denom);
        tp_buf_printf(t,
                      "%s%s takes %s of the time (its time in %s, which has no FLOPs of its own: "
                      "%s)",
                      whose(up->name), op_name(up->name), pct(share, p, sizeof p),
                      op_name(nested->name), pct(nested->self_wall_share, q, sizeof q));
    } else {
        tp_buf_printf(t, "%s%s takes %s of the time", whose(d->name), op_name(d->name),
                      pct(share, p, sizeof p));
        tp_threads_at_once(d, t);
    }
    bound_phrase(r, d, t);
    double s2 = up ? tp_amdahl(share, 2) : v->amdahl[0].speedup_2x,
           smax = up ? tp_amdahl(share, INFINITY) : v->amdahl[0].speedup_max;
    if (smax > 0)
        tp_buf_printf(t,
                      "; a 2x faster %s makes the program %.2fx faster, an infinitely fast one "
                      "%.2fx.",
                      op_name(d->name), s2, smax);
    else
        tp_buf_printf(t,
                      "; a 2x faster %s makes the program %.2fx faster; it ran all the time, so "
                      "what an infinitely fast one gives has no bound here.",
                      op_name(d->name), s2);
    double outside = ratio((double)program_outside(r, denom), (double)denom);
    if (outside < 0.5)
        return;
    size_t worked = 0;
    for (size_t k = 0; k < r->noutside_ops; k++)
        worked += tp_advice_works(&r->outside_ops[k]);
    tp_buf_printf(t, " Most of the time (%s) is spent outside every op", pct(outside, p, sizeof p));
    if (worked) {
        tp_buf_puts(t, ", mostly in ");
        tp_advice_names(r, t);
        tp_buf_putc(t, '.');
    } else if (r->noutside_ops) {
        tp_buf_putc(t, '.');
    } else if (!r->samples.hz) {
        tp_buf_puts(t, "; CPU samples (TPROF_SAMPLE_HZ, off in this run) would say where it goes "
                       "and what to do about it.");
    } else {
        tp_buf_puts(t, ", where no CPU sample landed (a run too short, or time spent blocked).");
    }
    tp_advice_outside(r, t);
}

static int has_note(const struct tp_report *r, const char *s)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (r->notes[i] && !strcmp(r->notes[i], s))
            return 1;
    return 0;
}

void tp_analyze(struct tp_report *r)
{
    tp_memory_classify(&r->memory);
    uint64_t wall = r->program.wall_ns;
    /* Merged: the processes' time side by side, saturating rather than wrapping. */
    uint64_t denom = wall;
    if (r->merged_processes > 1)
        denom = wall > UINT64_MAX / r->merged_processes ? UINT64_MAX : wall * r->merged_processes;
    double pg = r->machine.peak_gflops, pb = r->machine.peak_gbps;
    uint64_t self_sum = 0, wall_sum = 0;
    for (size_t i = 0; i < r->nops; i++) {
        tp_op_roofline(&r->ops[i], pg, pb, denom);
        uint64_t s = r->ops[i].self_ns, w = self_wall(&r->ops[i], denom);
        self_sum = self_sum > UINT64_MAX - s ? UINT64_MAX : self_sum + s;
        wall_sum = wall_sum > UINT64_MAX - w ? UINT64_MAX : wall_sum + w;
    }

    struct tp_verdict *v = &r->verdict;
    clear_verdict(v);
    v->alloc_ns = r->memory.alloc_ns;
    tp_outside_ops(r, denom, wall_sum);
    tp_cpu_verdict(r);
    tp_wait_verdict(r);

    struct tp_op **order = calloc(r->nops ? r->nops : 1, sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < r->nops; i++)
        order[i] = &r->ops[i];
    qsort(order, r->nops, sizeof *order, by_self);

    size_t top = r->nops < AMDAHL_TOP ? r->nops : AMDAHL_TOP;
    v->amdahl = calloc(top ? top : 1, sizeof *v->amdahl);
    if (!v->amdahl) {
        free(order);
        return;
    }
    for (size_t i = 0; i < top; i++) {
        struct tp_amdahl *a = &v->amdahl[v->namdahl++];
        a->op = tp_dup_or_null(order[i]->name);
        a->share = order[i]->self_wall_share > 1 ? 1 : order[i]->self_wall_share;
        a->speedup_2x = tp_amdahl(a->share, 2);
        a->speedup_max = tp_amdahl(a->share, INFINITY);
    }
    if (r->nops > 0 && order[0]->self_ns > 0) {
        const struct tp_op *d = order[0], *up = tp_flops_parent(r, d);
        v->share = d->self_wall_share;
        if (up) { /* the op the verdict reasons on (ops_story) */
            d = up;
            v->share = tp_total_share(up, denom);
        }
        v->op = tp_dup_or_null(d->name);
        v->bound = tp_dup_or_null(d->bound);
        v->efficiency = d->efficiency;
    }
    if (self_sum > denom && denom > 0 && !has_note(r, OVERLAP_NOTE))
        tp_report_note(r, "%s", OVERLAP_NOTE);

    struct tp_buf t;
    tp_buf_init(&t);
    ops_story(r, order, denom, &t);
    tp_advice_exclude(r, v->threads_wall_ns ? v->threads_wall_ns : denom, &t);
    memory_story(r, &t);
    if (denom > 0 && r->memory.alloc_ns > denom / 20) {
        char a[32], p[32];
        /* one decimal, as the line under the verdict gives the same figure; "~": an estimate
         * (memory.alloc_ns_method) */
        tp_buf_printf(&t, " The allocator itself takes ~%s (%.1f%% of the time).",
                      tp_fmt_ns(r->memory.alloc_ns, a, sizeof a),
                      100 * ratio((double)r->memory.alloc_ns, (double)denom));
        (void)p;
    }
    v->text = tp_buf_ok(&t) ? strdup(tp_buf_str(&t)) : NULL;
    tp_buf_free(&t);
    free(order);
}
