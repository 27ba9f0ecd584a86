/* The text report (DESIGN §7): what a person reads at exit. At most o->width columns, human
 * units, the answer first (verdict), then the figures behind it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "units.h"

#define RULE "----------------------------------------------------------------------------------------------------"

static void heading(struct tp_buf *b, const char *title, int width)
{
    int n = (int)strlen(title);
    tp_buf_printf(b, "\n%s %.*s\n", title, width - n - 1 > 0 ? width - n - 1 : 0, RULE);
}

/* Wrap a paragraph at width columns, with an indent for every line. */
static void wrap(struct tp_buf *b, const char *text, int width, int indent)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        int room = width - indent;
        int len = (int)strlen(p);
        int cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = room;
        }
        tp_buf_printf(b, "%*s%.*s\n", indent, "", cut, p);
        p += cut;
    }
}

static int by_self(const void *a, const void *b)
{
    const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static void header(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    const struct tp_program *p = &r->program;
    char cmd[256] = "", wall[32], tmp[512];
    size_t used = 0;
    for (size_t i = 0; i < p->argc && used < sizeof cmd - 2; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", p->argv[i]);
    tp_fmt_ns(p->wall_ns, wall, sizeof wall);
    snprintf(tmp, sizeof tmp, "tprof %s: %s", r->tprof_version ? r->tprof_version : "?",
             cmd[0] ? cmd : (p->exe ? p->exe : "?"));
    char fit[128];
    tp_buf_printf(b, "%s\n", tp_fmt_fit(tmp, (size_t)o->width, fit, sizeof fit));
    if (r->merged_processes > 1)
        tp_buf_printf(b, "merged from %llu processes; longest wall time %s\n",
                      (unsigned long long)r->merged_processes, wall);
    else
        tp_buf_printf(b, "pid %lld, wall time %s, threads %llu%s%s\n", (long long)p->pid, wall,
                      (unsigned long long)p->threads, p->host ? ", host " : "",
                      p->host ? p->host : "");
    const struct tp_machine *m = &r->machine;
    if (m->peak_gflops > 0 && m->peak_gbps > 0)
        tp_buf_printf(b, "machine peaks %.1f GFLOP/s, %.1f GB/s (from %s)\n", m->peak_gflops,
                      m->peak_gbps, m->source ? m->source : "?");
    else
        tp_buf_printf(b, "machine peaks unknown (run `tprof calibrate`, or set TPROF_PEAK_GFLOPS "
                         "and TPROF_PEAK_GBPS): no roofline\n");
    if (r->partial)
        tp_buf_puts(b, "PARTIAL REPORT: some data was dropped (see notes)\n");
    for (size_t i = 0; i < r->nnotes; i++) {
        tp_buf_puts(b, "note: ");
        wrap(b, r->notes[i], o->width, 0);
    }
}

static void verdict(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    const struct tp_verdict *v = &r->verdict;
    char t1[32], t2[32];
    heading(b, "VERDICT", o->width);
    if (v->text)
        wrap(b, v->text, o->width, 0);
    uint64_t wall = r->program.wall_ns;
    tp_fmt_ns(v->outside_ops_ns, t1, sizeof t1);
    tp_fmt_ns(v->alloc_ns, t2, sizeof t2);
    if (r->nops)
        tp_buf_printf(b, "time outside any op: %s (%.1f%%)   ", t1,
                      wall ? 100.0 * (double)v->outside_ops_ns / (double)wall : 0.0);
    tp_buf_printf(b, "time inside the allocator: %s (%.1f%%)\n", t2,
                  wall ? 100.0 * (double)v->alloc_ns / (double)wall : 0.0);
    if (v->namdahl == 0)
        return;
    tp_buf_printf(b, "\n%-44s %8s %16s %16s\n", "Amdahl: if this op ran...", "self%",
                  "2x faster", "in no time");
    size_t n = v->namdahl < (size_t)o->top ? v->namdahl : (size_t)o->top;
    for (size_t i = 0; i < n; i++) {
        const struct tp_amdahl *a = &v->amdahl[i];
        char name[48];
        tp_fmt_fit(a->op, 44, name, sizeof name);
        tp_buf_printf(b, "%-44s %7.1f%% %15.2fx %15.2fx\n", name, 100 * a->share, a->speedup_2x,
                      a->speedup_max);
    }
}

static void ops_table(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b,
                      struct tp_op **order, size_t n)
{
    heading(b, "OPS (by self time)", o->width);
    tp_buf_printf(b, "%-25s %-9s %7s %9s %9s %6s %8s %6s %-7s %5s\n", "op", "kind", "calls",
                  "total", "self", "self%", "GFLOP/s", "AI", "bound", "eff%");
    for (size_t i = 0; i < n; i++) {
        const struct tp_op *p = order[i];
        char name[32], kind[16], calls[16], tot[16], self[16], gf[16], ai[16], eff[8];
        tp_fmt_fit(p->name, 25, name, sizeof name);
        tp_fmt_fit(p->kind, 9, kind, sizeof kind);
        tp_fmt_count(p->calls, calls, sizeof calls);
        tp_fmt_ns(p->total_ns, tot, sizeof tot);
        tp_fmt_ns(p->self_ns, self, sizeof self);
        if (p->flops) {
            snprintf(gf, sizeof gf, "%.2f", p->gflops);
            snprintf(ai, sizeof ai, "%.1f", p->intensity);
        } else {
            strcpy(gf, "-");
            strcpy(ai, "-");
        }
        if (p->bound && strcmp(p->bound, "unknown") != 0)
            snprintf(eff, sizeof eff, "%.0f", 100 * p->efficiency);
        else
            strcpy(eff, "-");
        tp_buf_printf(b, "%-25s %-9s %7s %9s %9s %5.1f%% %8s %6s %-7s %5s\n", name, kind, calls,
                      tot, self, 100 * p->self_share, gf, ai,
                      p->bound && strcmp(p->bound, "unknown") ? p->bound : "-", eff);
    }
    int merged = 0;
    for (size_t i = 0; i < n; i++)
        merged |= order[i]->nprocs > 1;
    if (merged) {
        tp_buf_printf(b, "\n%-44s %6s %12s %12s %12s %10s\n", "per process (total time)", "procs",
                      "min", "mean", "max", "imbalance");
        for (size_t i = 0; i < n; i++) {
            const struct tp_op *p = order[i];
            if (p->nprocs < 2)
                continue;
            char name[48], a[16], m[16], x[16];
            tp_fmt_fit(p->name, 44, name, sizeof name);
            tp_fmt_ns((uint64_t)p->proc_min_ns, a, sizeof a);
            tp_fmt_ns((uint64_t)p->proc_mean_ns, m, sizeof m);
            tp_fmt_ns((uint64_t)p->proc_max_ns, x, sizeof x);
            tp_buf_printf(b, "%-44s %6llu %12s %12s %12s %9.2fx\n", name,
                          (unsigned long long)p->nprocs, a, m, x, p->imbalance);
        }
    }
}

static void latency_row(struct tp_buf *b, const char *label, uint64_t warm, const struct tp_latency *l)
{
    char name[32], p50[16], p95[16], p99[16], mn[16], mx[16], mean[16], sd[16];
    tp_fmt_fit(label, 24, name, sizeof name);
    tp_fmt_ns(l->min, mn, sizeof mn);
    tp_fmt_ns(l->p50, p50, sizeof p50);
    tp_fmt_ns(l->p95, p95, sizeof p95);
    tp_fmt_ns(l->p99, p99, sizeof p99);
    tp_fmt_ns(l->max, mx, sizeof mx);
    tp_fmt_ns((uint64_t)llround(l->mean), mean, sizeof mean);
    tp_fmt_ns((uint64_t)llround(l->stddev), sd, sizeof sd);
    tp_buf_printf(b, "%-24s %6llu %5llu %8s %8s %8s %8s %8s %8s %8s\n", name,
                  (unsigned long long)l->n, (unsigned long long)warm, mn, p50, p95, p99, mx, mean,
                  sd);
}

static void latency_table(const struct tp_text_opts *o, struct tp_buf *b, struct tp_op **order,
                          size_t n)
{
    heading(b, "LATENCY per call (warm-up calls left out)", o->width);
    tp_buf_printf(b, "%-24s %6s %5s %8s %8s %8s %8s %8s %8s %8s\n", "op", "n", "warm", "min", "p50",
                  "p95", "p99", "max", "mean", "stddev");
    for (size_t i = 0; i < n; i++)
        if (order[i]->latency.n)
            latency_row(b, order[i]->name, order[i]->warmup_calls, &order[i]->latency);
}

static void shapes(const struct tp_text_opts *o, struct tp_buf *b, struct tp_op **order, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n && i < 3; i++)
        any |= order[i]->nshapes > 0;
    if (!any)
        return;
    heading(b, "SHAPES of the top ops", o->width);
    tp_buf_printf(b, "%-30s %-34s %7s %9s %8s %6s\n", "op", "shape", "calls", "total", "GFLOP/s",
                  "AI");
    for (size_t i = 0; i < n && i < 3; i++) {
        const struct tp_op *p = order[i];
        size_t k = p->nshapes < (size_t)o->top ? p->nshapes : (size_t)o->top;
        for (size_t j = 0; j < k; j++) {
            const struct tp_shape *s = &p->shapes[j];
            char name[32], desc[36], calls[16], tot[16];
            tp_fmt_fit(j == 0 ? p->name : "", 30, name, sizeof name);
            tp_fmt_fit(s->desc, 34, desc, sizeof desc);
            tp_fmt_count(s->calls, calls, sizeof calls);
            tp_fmt_ns(s->total_ns, tot, sizeof tot);
            tp_buf_printf(b, "%-30s %-34s %7s %9s %8.2f %6.1f\n", name, desc, calls, tot,
                          s->total_ns ? (double)s->flops / (double)s->total_ns : 0.0,
                          s->bytes ? (double)s->flops / (double)s->bytes : 0.0);
        }
        if (p->nshapes > k)
            tp_buf_printf(b, "%-30s ... %zu more shapes\n", "", p->nshapes - k);
    }
}

static void steps(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    const struct tp_steps *s = &r->steps;
    if (s->count == 0)
        return;
    heading(b, "STEPS", o->width);
    tp_buf_printf(b, "%llu steps of %s", (unsigned long long)s->count, s->name ? s->name : "?");
    if (s->window_first >= 0)
        tp_buf_printf(b, " recorded (steps %lld to %lld of the run)", (long long)s->window_first,
                      (long long)s->window_last);
    tp_buf_printf(b, "; %llu warm-up step%s left out\n", (unsigned long long)s->warmup,
                  s->warmup == 1 ? "" : "s");
    if (s->latency.n) {
        tp_buf_printf(b, "%-24s %6s %5s %8s %8s %8s %8s %8s %8s %8s\n", "", "n", "warm", "min",
                      "p50", "p95", "p99", "max", "mean", "stddev");
        latency_row(b, "latency per step", s->warmup, &s->latency);
        char lo[16], hi[16];
        tp_fmt_ns((uint64_t)s->latency.p50_ci_lo, lo, sizeof lo);
        tp_fmt_ns((uint64_t)s->latency.p50_ci_hi, hi, sizeof hi);
        tp_buf_printf(b, "median step latency: 95%% confidence interval %s to %s\n", lo, hi);
    }
}

static void memory(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    const struct tp_memory *m = &r->memory;
    char a[32], c[32], d[32], e[32];
    heading(b, "MEMORY (heap: sizes as requested)", o->width);
    tp_fmt_bytes(m->peak_bytes, a, sizeof a);
    tp_fmt_ns(m->peak_ns, c, sizeof c);
    tp_buf_printf(b, "peak heap %s at %s", a, c);
    if (m->peak_op)
        tp_buf_printf(b, ", inside %s", m->peak_op);
    tp_fmt_bytes(m->peak_rss_bytes, d, sizeof d);
    tp_buf_printf(b, "; peak RSS %s\n", d);
    if (m->persistent_bytes || m->transient_bytes) {
        tp_fmt_bytes(m->persistent_bytes, a, sizeof a);
        tp_fmt_bytes(m->transient_bytes, c, sizeof c);
        tp_buf_printf(b, "at the peak: %s persistent (allocated before the first op), %s transient\n",
                      a, c);
    }
    tp_fmt_count(m->allocs, a, sizeof a);
    tp_fmt_count(m->frees, c, sizeof c);
    tp_fmt_bytes(m->bytes_allocated, d, sizeof d);
    tp_fmt_ns(m->alloc_ns, e, sizeof e);
    tp_buf_printf(b, "%s allocations, %s frees, %s requested in all, %s inside the allocator\n", a,
                  c, d, e);
    tp_fmt_bytes(m->live_at_exit_bytes, a, sizeof a);
    tp_buf_printf(b, "live at exit: %s in %llu blocks", a,
                  (unsigned long long)m->live_at_exit_allocs);
    if (m->unknown_frees)
        tp_buf_printf(b, "; %llu frees of blocks tprof never saw (passed through)",
                      (unsigned long long)m->unknown_frees);
    if (m->failed_allocs)
        tp_buf_printf(b, "; %llu failed allocations", (unsigned long long)m->failed_allocs);
    tp_buf_putc(b, '\n');
}

/* "f (a.c:3) < g (b.c:9) < main (m.c:1)" cut to the room left. */
static void chain(const struct tp_site *s, char *out, size_t n, size_t room)
{
    char buf[1024] = "", fr[300];
    size_t used = 0;
    for (size_t i = 0; i < s->nframes && used < sizeof buf - 1; i++) {
        tp_fmt_frame(&s->frames[i], fr, sizeof fr);
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " < " : "", fr);
        /* What called main is the C runtime: noise in a one-line site. */
        if (s->frames[i].function && !strcmp(s->frames[i].function, "main"))
            break;
    }
    tp_fmt_fit(buf, room, out, n);
}

static int by_at_peak(const void *a, const void *b)
{
    const struct tp_site *x = *(const struct tp_site *const *)a, *y = *(const struct tp_site *const *)b;
    if (x->live_at_peak_bytes != y->live_at_peak_bytes)
        return x->live_at_peak_bytes < y->live_at_peak_bytes ? 1 : -1;
    if (x->peak_live_bytes != y->peak_live_bytes)
        return x->peak_live_bytes < y->peak_live_bytes ? 1 : -1;
    return 0;
}

static int by_leak(const void *a, const void *b)
{
    const struct tp_site *x = *(const struct tp_site *const *)a, *y = *(const struct tp_site *const *)b;
    if (x->live_at_exit_bytes != y->live_at_exit_bytes)
        return x->live_at_exit_bytes < y->live_at_exit_bytes ? 1 : -1;
    return 0;
}

static void sites(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    const struct tp_memory *m = &r->memory;
    if (!m->nsites)
        return;
    const struct tp_site **v = malloc(m->nsites * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < m->nsites; i++)
        v[i] = &m->sites[i];
    size_t room = (size_t)o->width - 42;
    char line[1100], a[16], p[16], c[16];

    qsort(v, m->nsites, sizeof *v, by_at_peak);
    heading(b, "CALL SITES holding the peak (frames[0] called the allocator)", o->width);
    tp_buf_printf(b, "%10s %10s %8s %10s  %s\n", "at peak", "own peak", "allocs", "bytes", "site");
    size_t shown = 0;
    for (size_t i = 0; i < m->nsites && shown < (size_t)o->top; i++) {
        const struct tp_site *s = v[i];
        if (!s->live_at_peak_bytes && !s->peak_live_bytes)
            continue;
        char t[16];
        tp_fmt_bytes(s->live_at_peak_bytes, a, sizeof a);
        tp_fmt_bytes(s->peak_live_bytes, p, sizeof p);
        tp_fmt_count(s->allocs, c, sizeof c);
        tp_fmt_bytes(s->bytes, t, sizeof t);
        chain(s, line, sizeof line, room);
        tp_buf_printf(b, "%10s %10s %8s %10s  %s\n", a, p, c, t, line);
        shown++;
    }
    if (m->nsites_total > m->nsites)
        tp_buf_printf(b, "(%llu sites in all; the JSON report has %zu)\n",
                      (unsigned long long)m->nsites_total, m->nsites);

    qsort(v, m->nsites, sizeof *v, by_leak);
    if (v[0]->live_at_exit_bytes) {
        heading(b, "LEAKS (still allocated at exit)", o->width);
        tp_buf_printf(b, "%10s %8s %10s %10s  %s\n", "bytes", "blocks", "", "", "site");
        for (size_t i = 0; i < m->nsites && i < (size_t)o->top && v[i]->live_at_exit_bytes; i++) {
            tp_fmt_bytes(v[i]->live_at_exit_bytes, a, sizeof a);
            tp_fmt_count(v[i]->live_at_exit_allocs, c, sizeof c);
            chain(v[i], line, sizeof line, room);
            tp_buf_printf(b, "%10s %8s %10s %10s  %s\n", a, c, "", "", line);
        }
    }
    free(v);
}

void tp_render_text(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    struct tp_text_opts opts = *o;
    if (opts.width < 80)
        opts.width = 80;
    if (opts.width > 100)
        opts.width = 100;
    if (opts.top < 1)
        opts.top = 10;
    struct tp_op **order = calloc(r->nops ? r->nops : 1, sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < r->nops; i++)
        order[i] = &r->ops[i];
    qsort(order, r->nops, sizeof *order, by_self);
    size_t n = r->nops < (size_t)opts.top ? r->nops : (size_t)opts.top;

    tp_buf_puts(b, "\n");
    header(r, &opts, b);
    verdict(r, &opts, b);
    if (r->nops) {
        ops_table(r, &opts, b, order, n);
        if (r->nops > n)
            tp_buf_printf(b, "(%zu more ops in the JSON report)\n", r->nops - n);
        latency_table(&opts, b, order, n);
        shapes(&opts, b, order, n);
    }
    steps(r, &opts, b);
    memory(r, &opts, b);
    sites(r, &opts, b);
    free(order);
}
