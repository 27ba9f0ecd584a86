/* The text report: what a person reads at exit. The short one (the default) fits a terminal and
 * ends with the answer: header and notes (one line each), the top ops, the steps in a line, the
 * heap's peak with its top call sites, the program's leaks, the files written, the verdict. The
 * full one (TPROF_DETAIL=full) has every section, in this order: header, ops (with latency and
 * shapes), steps, the verdict with Amdahl, memory, call sites, leaks, outputs.
 *
 * Every line fits o->width columns (100; the first column of each table grows or shrinks with
 * it). Cells are built with tp_fmt_cell, which counts characters rather than bytes and turns
 * control characters into '?', so that a symbol or path with odd bytes neither breaks the
 * alignment nor reaches the terminal. Numbers that would not fit their column change unit or
 * precision (report/units.c) rather than push the row wider. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze/analyze.h"
#include "report/peaks/peaks.h"
#include "common/names/names.h"
#include "report/render/render.h"
#include "report/render/render_text.h"
#include "report/units.h"

#define SHORT_OPS 5  /* rows of the short report's OPS table */
#define MIN_WIDTH 86 /* below this the first columns would be too narrow to name anything */
#define MAX_WIDTH 200
#define SHAPE_OPS 3 /* ops whose shapes are listed */

/* Cells: left-aligned text; right-aligned in tp_text_right. */
static const char *L(char *out, size_t n, const char *s, size_t w)
{
    return tp_fmt_cell(s, w, 0, out, n);
}

static int known_bound(const char *b)
{
    return b && (!strcmp(b, "compute") || !strcmp(b, "memory"));
}

static int by_self(const void *a, const void *b)
{
    const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* ---- header ---- */

static void header(struct tp_text_ctx *c)
{
    const struct tp_report *r = c->r;
    const struct tp_program *p = &r->program;
    char wall[32], line[1024];
    struct tp_buf t;
    tp_buf_init(&t);
    tp_buf_printf(&t, "tprof %s: ", r->tprof_version ? r->tprof_version : "?");
    if (p->argc)
        tp_text_command_line(p, &t);
    else
        tp_buf_puts(&t, p->exe ? p->exe : "(program unknown)");
    tp_buf_printf(c->b, "%s\n", tp_fmt_fit(tp_buf_str(&t), (size_t)c->width, line, sizeof line));
    tp_buf_free(&t);

    tp_fmt_ns(p->wall_ns, wall, sizeof wall);
    if (r->merged_processes > 1)
        tp_text_say(
            c,
            "merged from %llu processes (%llu threads); longest wall time %s; shares are of "
            "%llu x that",
            (unsigned long long)r->merged_processes, (unsigned long long)p->threads, wall,
            (unsigned long long)r->merged_processes);
    else if (r->merged_processes == 1)
        tp_text_say(c, "merged from 1 process: pid %lld, wall time %s, threads %llu",
                    (long long)p->pid, wall, (unsigned long long)p->threads);
    else {
        char rank[48] = "", host[300] = "";
        if (p->rank > 0)
            snprintf(rank, sizeof rank, " (rank %lld)", (long long)p->rank);
        if (p->host)
            snprintf(host, sizeof host, ", host %s", p->host);
        tp_text_say(c, "pid %lld%s, wall time %s, threads %llu%s", (long long)p->pid, rank, wall,
                    (unsigned long long)p->threads, host);
    }
    char cpu[400];
    if (tp_cpu_header(p, cpu, sizeof cpu))
        tp_text_say(c, "%s", cpu);
    const struct tp_machine *m = &r->machine;
    if (m->peak_gflops > 0 && m->peak_gbps > 0 && isfinite(m->peak_gflops) &&
        isfinite(m->peak_gbps))
        tp_text_say(c, "%s", tp_peaks_header(r, line, sizeof line));
    else
        tp_text_say(c, "machine peaks unknown: no roofline (run `tprof calibrate`, or set "
                       "TPROF_PEAK_GFLOPS and _GBPS)");
    if (r->partial)
        tp_text_say(c,
                    "PARTIAL REPORT: tprof ran out of room for some of its tables and dropped data "
                    "(see the notes)");
    tp_text_notes(c);
}

/* ---- ops ---- */

/* The bound and eff% cells. Above 100%, both say why instead, in the same 13 columns: "867
 * >given" (the peaks given, too low), ">quick", ">cache"; the legend under the table says it in
 * words, naming the value given. */
static const char *roof_cells(struct tp_text_ctx *c, const struct tp_op *p, int roof, char *out,
                              char *tmp)
{
    char eff[32], why[64];
    if (roof)
        tp_fmt_num(100 * p->efficiency, 0, 5, eff, sizeof eff);
    /* under the "eff%" heading, as the verdict's "<1%": never a misleading 0 */
    if (roof && p->efficiency > 0 && 100 * p->efficiency < 0.5)
        snprintf(eff, sizeof eff, "<1");
    if (roof && tp_peaks_over_shown(p->efficiency)) {
        tp_peaks_over(&c->r->machine, p->bound, 1, why, sizeof why);
        snprintf(tmp, 128, "%s >%s", eff, why);
        return tp_text_right(out, 128, tmp, 13);
    }
    char b[128];
    snprintf(tmp, 128, "%s %s", L(b, sizeof b, roof ? p->bound : "-", 7),
             tp_text_right(out, 128, roof ? eff : "-", 5));
    return tmp;
}

/* One line per bound among the rows shown above 100%: why, in words. */
static void over_legend(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    int said[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const struct tp_op *p = order[i];
        int mem = p->bound && !strcmp(p->bound, "memory");
        if (!known_bound(p->bound) || !tp_peaks_over_shown(p->efficiency) || said[mem]++)
            continue;
        char word[16], why[256], prefix[80];
        tp_peaks_over(&c->r->machine, p->bound, 1, word, sizeof word);
        tp_peaks_over(&c->r->machine, p->bound, 0, why, sizeof why);
        snprintf(prefix, sizeof prefix, ">%s: above 100%% (%s-bound): ", word, p->bound);
        tp_text_wrap(c, prefix, why, 2);
    }
}

/* An op's total, self and self% cells (32 bytes each). A demoted op's calls were counted, not
 * timed: its total is marked as the estimate it is (its timed calls and counted_est_ns), and
 * its self time, which is its callers', is "counted". */
static void op_times(const struct tp_op *p, char *tot, char *self, char *pct)
{
    if (!p->demoted) {
        tp_fmt_ns(p->total_ns, tot, 32);
        tp_fmt_ns(p->self_ns, self, 32);
        tp_fmt_pct(p->self_share, 6, pct, 32);
        return;
    }
    char t[24];
    tp_fmt_ns(p->total_ns + p->counted_est_ns, t, sizeof t);
    snprintf(tot, 32, "~%s", t);
    snprintf(self, 32, "counted");
    snprintf(pct, 32, "-");
}

/* The legend of the demoted ops' cells, when the table shows one. */
static void counted_legend(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (order[i]->demoted) {
            tp_text_wrap(c, "counted: ",
                         "an op too short to time (TPROF_DEMOTE): its calls after the first 65 "
                         "were counted, not timed, so its time is in its callers' self time; "
                         "its total, ~, is an estimate: its calls times the median of its judged "
                         "calls, at most the self time of the ops its counted calls ran in.",
                         2);
            return;
        }
}

/* Under an op's row, the functions its CPU samples landed in, when they say more than its own
 * name: ggml's mul_mat "in: ggml_vec_dot_f16 88%, [libgomp.so.1] 9% (412 CPU samples)". An op
 * with fewer samples than KERNEL_MIN_SAMPLES gets none: its shares would be noise. */
#define KERNEL_MIN_SAMPLES 10
#define KERNEL_ROW_MAX     3
static void kernels_row(struct tp_text_ctx *c, const struct tp_op *p)
{
    uint64_t all = 0;
    double shares = 0;
    for (size_t i = 0; i < p->nkernels; i++) {
        all += p->kernels[i].samples;
        shares += p->kernels[i].share;
    }
    if (!p->nkernels ||
        (p->nkernels == 1 && p->kernels[0].name && p->name && !strcmp(p->kernels[0].name, p->name)))
        return;
    /* the op's samples: those of the kernels kept over their share of all */
    uint64_t n = shares > 0 ? (uint64_t)((double)all / shares + 0.5) : all;
    if (n < KERNEL_MIN_SAMPLES)
        return;
    struct tp_buf b;
    tp_buf_init(&b);
    char tail[48], one[600];
    snprintf(tail, sizeof tail, " (%llu CPU samples)", (unsigned long long)n);
    for (size_t i = 0; i < p->nkernels && i < KERNEL_ROW_MAX; i++) {
        double pct = 100 * p->kernels[i].share;
        snprintf(one, sizeof one, "%s%s %s%.0f%%", i ? ", " : "",
                 tp_name_short(p->kernels[i].name ? p->kernels[i].name : "?"),
                 pct > 0 && pct < 0.5 ? "<" : "", pct > 0 && pct < 0.5 ? 1.0 : pct);
        /* the short report: one line, the kernels that fit it (the first always) */
        if (i && !c->full && 6 + b.len + strlen(one) + strlen(tail) > (size_t)c->width)
            break;
        tp_buf_puts(&b, one);
    }
    tp_buf_puts(&b, tail);
    tp_text_wrap(c, "  in: ", b.p ? b.p : "", 6);
    tp_buf_free(&b);
}

/* What the short names in the tables stand for (tp_name_short), when the table shows one. */
static void short_legend(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tp_name_shortened(order[i]->name)) {
            tp_text_wrap(c, "mul_mat, add, ...: ",
                         "ggml's graph nodes by their op: the functions "
                         "ggml_compute_forward_<op> (their names in the JSON report).",
                         2);
            return;
        }
}

/* Where ops ran on several threads at once, wall% (each moment counted once: what the verdict
 * uses) stands next to self% (summed over threads: it can pass 100%), in the place of kind, which
 * the JSON keeps; on one thread the two are the same and the table is as it always was. */
static void ops_table(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    char h[11][128], kc[140] = "", wc[140] = "";
    int wall = tp_ops_overlapped(c->r);
    size_t nw = tp_text_col(c, wall ? 28 : 24);
    tp_text_heading(c, "OPS (by self time)");
    if (wall)
        snprintf(wc, sizeof wc, " %s", tp_text_right(h[10], 128, "wall%", 6));
    else
        snprintf(kc, sizeof kc, "%s ", L(h[1], 128, "kind", 10));
    tp_buf_printf(c->b, "%s %s%s %s %s %s%s %s %s %s %s\n", L(h[0], 128, "op", nw), kc,
                  tp_text_right(h[2], 128, "calls", 7), tp_text_right(h[3], 128, "total", 9),
                  tp_text_right(h[4], 128, "self", 9), tp_text_right(h[5], 128, "self%", 6), wc,
                  tp_text_right(h[6], 128, "GFLOP/s", 8), tp_text_right(h[7], 128, "AI", 6),
                  L(h[8], 128, "bound", 7), tp_text_right(h[9], 128, "eff%", 5));
    for (size_t i = 0; i < n; i++) {
        const struct tp_op *p = order[i];
        char calls[32], tot[32], self[32], pct[32], wpct[32], gf[32], ai[32], eff[128];
        int roof = known_bound(p->bound);
        tp_fmt_count(p->calls, calls, sizeof calls);
        op_times(p, tot, self, pct);
        if (p->flops && p->total_ns)
            tp_fmt_num(p->gflops, 2, 8, gf, sizeof gf);
        else
            strcpy(gf, "-");
        if (p->flops && p->bytes)
            tp_fmt_num(p->intensity, 1, 6, ai, sizeof ai);
        else
            strcpy(ai, "-");
        if (wall)
            snprintf(wc, sizeof wc, " %s",
                     tp_text_right(h[10], 128, tp_fmt_pct(p->self_wall_share, 6, wpct, 32), 6));
        else
            snprintf(kc, sizeof kc, "%s ", L(h[1], 128, p->kind, 10));
        tp_buf_printf(c->b, "%s %s%s %s %s %s%s %s %s %s\n",
                      tp_text_name(c, tp_name_short(p->name), nw, h[0], 128), kc,
                      tp_text_right(h[2], 128, calls, 7), tp_text_right(h[3], 128, tot, 9),
                      tp_text_right(h[4], 128, self, 9), tp_text_right(h[5], 128, pct, 6), wc,
                      tp_text_right(h[6], 128, gf, 8), tp_text_right(h[7], 128, ai, 6),
                      roof_cells(c, p, roof, h[8], eff));
        if (c->full || i == 0) /* the short report: the top op's alone */
            kernels_row(c, p);
    }
    over_legend(c, order, n);
    counted_legend(c, order, n);
    short_legend(c, order, n);
    if (c->r->nops > n)
        tp_text_say(c, "(%zu more op%s in the JSON report)", c->r->nops - n,
                    c->r->nops - n == 1 ? "" : "s");
}

static void spread_table(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= order[i]->nprocs > 1;
    if (!any)
        return;
    char h[6][128];
    size_t nw = tp_text_col(c, 40);
    tp_buf_putc(c->b, '\n');
    tp_buf_printf(c->b, "%s %s %s %s %s %s\n", L(h[0], 128, "per process (total time)", nw),
                  tp_text_right(h[1], 128, "procs", 6), tp_text_right(h[2], 128, "min", 12),
                  tp_text_right(h[3], 128, "mean", 12), tp_text_right(h[4], 128, "max", 12),
                  tp_text_right(h[5], 128, "imbalance", 10));
    for (size_t i = 0; i < n; i++) {
        const struct tp_op *p = order[i];
        if (p->nprocs < 2)
            continue;
        char procs[32], mn[32], mean[32], mx[32], imb[32], num[32];
        tp_fmt_count(p->nprocs, procs, sizeof procs);
        tp_fmt_ns(tp_text_ns_of(p->proc_min_ns), mn, sizeof mn);
        tp_fmt_ns(tp_text_ns_of(p->proc_mean_ns), mean, sizeof mean);
        tp_fmt_ns(tp_text_ns_of(p->proc_max_ns), mx, sizeof mx);
        snprintf(imb, sizeof imb, "%sx", tp_fmt_num(p->imbalance, 2, 9, num, sizeof num));
        tp_buf_printf(c->b, "%s %s %s %s %s %s\n",
                      tp_text_name(c, tp_name_short(p->name), nw, h[0], 128),
                      tp_text_right(h[1], 128, procs, 6), tp_text_right(h[2], 128, mn, 12),
                      tp_text_right(h[3], 128, mean, 12), tp_text_right(h[4], 128, mx, 12),
                      tp_text_right(h[5], 128, imb, 10));
    }
}

static void latency_table(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= order[i]->latency.n > 0;
    if (!any)
        return;
    tp_text_heading(c, "LATENCY per call (warm-up calls left out)");
    tp_text_latency_head(c, "op");
    for (size_t i = 0; i < n; i++)
        if (order[i]->latency.n)
            tp_text_latency_row(c, tp_name_short(order[i]->name), order[i]->warmup_calls,
                                &order[i]->latency);
}

static int by_shape_time(const void *a, const void *b)
{
    const struct tp_shape *x = *(const struct tp_shape *const *)a,
                          *y = *(const struct tp_shape *const *)b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return 0;
}

static void shapes(struct tp_text_ctx *c, struct tp_op **order, size_t n)
{
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        with += order[i]->nshapes > 0;
    if (!with)
        return;
    char h[6][160];
    size_t nw = tp_text_col(c, 24);
    tp_text_heading(c, "SHAPES of the top ops (by time)");
    tp_buf_printf(c->b, "%s %s %s %s %s %s\n", L(h[0], 160, "op", nw), L(h[1], 160, "shape", 40),
                  tp_text_right(h[2], 160, "calls", 7), tp_text_right(h[3], 160, "total", 9),
                  tp_text_right(h[4], 160, "GFLOP/s", 8), tp_text_right(h[5], 160, "AI", 6));
    size_t listed = 0;
    for (size_t i = 0; i < n && listed < SHAPE_OPS; i++) {
        const struct tp_op *p = order[i];
        if (!p->nshapes)
            continue;
        listed++;
        const struct tp_shape **v = malloc(p->nshapes * sizeof *v);
        if (!v)
            return;
        for (size_t j = 0; j < p->nshapes; j++)
            v[j] = &p->shapes[j];
        qsort(v, p->nshapes, sizeof *v, by_shape_time);
        size_t k = p->nshapes < (size_t)c->top ? p->nshapes : (size_t)c->top;
        for (size_t j = 0; j < k; j++) {
            const struct tp_shape *s = v[j];
            char calls[32], tot[32], gf[32], ai[32];
            tp_fmt_count(s->calls, calls, sizeof calls);
            tp_fmt_ns(s->total_ns, tot, sizeof tot);
            if (s->flops && s->total_ns)
                tp_fmt_num((double)s->flops / (double)s->total_ns, 2, 8, gf, sizeof gf);
            else
                strcpy(gf, "-");
            if (s->flops && s->bytes)
                tp_fmt_num((double)s->flops / (double)s->bytes, 1, 6, ai, sizeof ai);
            else
                strcpy(ai, "-");
            tp_buf_printf(c->b, "%s %s %s %s %s %s\n",
                          tp_text_name(c, j ? "" : tp_name_short(p->name), nw, h[0], 160),
                          L(h[1], 160, s->desc ? s->desc : "?", 40),
                          tp_text_right(h[2], 160, calls, 7), tp_text_right(h[3], 160, tot, 9),
                          tp_text_right(h[4], 160, gf, 8), tp_text_right(h[5], 160, ai, 6));
        }
        if (p->nshapes > k)
            tp_buf_printf(c->b, "%s ... %zu more shape%s\n", L(h[0], 160, "", nw), p->nshapes - k,
                          p->nshapes - k == 1 ? "" : "s");
        free(v);
    }
    if (with > listed)
        tp_text_say(c, "(the shapes of %zu more op%s are in the JSON report)", with - listed,
                    with - listed == 1 ? "" : "s");
}

/* ---- other outputs ---- */

/* One line on the n calls a trace did not draw, if any. */
static void left_out(struct tp_text_ctx *c, uint64_t n, const char *what)
{
    char a[32], line[300];
    snprintf(line, sizeof line, "%s calls %s", tp_fmt_count(n, a, sizeof a), what);
    if (n)
        tp_text_wrap(c, "trace: ", line, 2);
}

/* The short report's outputs: the files written, on one line, and where the rest of the report
 * is: the full text of a JSON report is one command away. */
static void short_outputs(struct tp_text_ctx *c)
{
    const struct tp_outputs *x = &c->r->outputs;
    struct tp_buf t;
    tp_buf_init(&t);
    const char *what[] = {
        "JSON",       "HTML",         "trace", "op-time flame graph", "heap flame graph",
        "heap pprof", "op-time pprof"};
    const char *path[] = {x->json,        x->html,  x->trace,     x->folded_time,
                          x->folded_heap, x->pprof, x->pprof_time};
    for (size_t i = 0; i < sizeof path / sizeof path[0]; i++)
        if (path[i])
            tp_buf_printf(&t, "%s%s %s", t.len ? ", " : "", what[i], path[i]);
    tp_buf_putc(c->b, '\n');
    if (x->json) /* the rest of the report is one command away */
        tp_buf_printf(&t, "; the full report: tprof report --full %s", x->json);
    if (t.len)
        tp_text_wrap(c, "written: ", tp_buf_str(&t), 2);
    if (!x->json)
        tp_text_say(c, "the full report (latency, shapes, steps, Amdahl, every site): "
                       "TPROF_DETAIL=full");
    tp_buf_free(&t);
}

static void outputs(struct tp_text_ctx *c)
{
    const struct tp_outputs *x = &c->r->outputs;
    if (!c->full) {
        short_outputs(c);
        return;
    }
    if (!x->trace && !x->folded_time && !x->folded_heap && !x->json && !x->html && !x->pprof &&
        !x->pprof_time)
        return;
    char a[32], b[32], line[5000];
    tp_text_heading(c, "OUTPUTS");
    if (x->json)
        tp_text_wrap(c, "JSON report: ", x->json, 2);
    if (x->html)
        tp_text_wrap(c, "HTML report: ", x->html, 2);
    if (x->trace) {
        tp_fmt_bytes(x->trace_bytes, a, sizeof a);
        tp_fmt_count(x->trace_events, b, sizeof b);
        snprintf(line, sizeof line, "%s (%s): %s op calls drawn one by one, %llu heap samples; %s",
                 x->trace, a, b, (unsigned long long)x->trace_heap_samples,
                 "open it in ui.perfetto.dev");
        tp_text_wrap(c, "trace: ", line, 2);
        left_out(c, x->trace_past_cap,
                 "past TPROF_TRACE_CAP are summarised per op, not drawn one by one");
        left_out(c, x->trace_past_max,
                 "did not fit the TPROF_TRACE_MAX size budget and are summarised per op");
        left_out(c, x->trace_past_deadline,
                 "past the report's deadline (a signal hurried it) are summarised per op");
    }
    if (x->folded_time) {
        snprintf(line, sizeof line, "%s (op self time in ns; flamegraph.pl, speedscope, inferno)",
                 x->folded_time);
        tp_text_wrap(c, "op-time flame graph: ", line, 2);
    }
    if (x->folded_heap) {
        snprintf(line, sizeof line, "%s (bytes live at the heap peak)", x->folded_heap);
        tp_text_wrap(c, "heap flame graph: ", line, 2);
    }
    if (x->pprof) {
        snprintf(line, sizeof line,
                 "%s (peak_space, leak_space, alloc_space, alloc_objects per call site; "
                 "go tool pprof -http=: %s)",
                 x->pprof, x->pprof);
        tp_text_wrap(c, "heap profile (pprof): ", line, 2);
    }
    if (x->pprof_time) {
        snprintf(line, sizeof line,
                 "%s (self ns, calls, flops per op stack; go tool pprof -http=: %s)", x->pprof_time,
                 x->pprof_time);
        tp_text_wrap(c, "op-time profile (pprof): ", line, 2);
    }
}

/* On a terminal wider than the report, the tables' first column grows to the op names shown,
 * up to the terminal's width, so that they stay on their rows. */
static void fit_names(struct tp_text_ctx *c, struct tp_op **order, size_t n, int term)
{
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        size_t w = tp_text_width(tp_name_short(order[i]->name ? order[i]->name : ""));
        longest = w > longest ? w : longest;
    }
    /* the OPS table's name column is the narrowest, 24 at the base width */
    int grow = longest > 24 ? (int)(longest - 24) : 0, room = term - c->width;
    if (c->width + (grow < room ? grow : room) > MAX_WIDTH)
        room = MAX_WIDTH - c->width;
    c->width += grow < room ? grow : room;
    c->extra = c->width - BASE_WIDTH;
}

void tp_render_text(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b)
{
    struct tp_text_ctx c = {
        r, b, o ? o->width : BASE_WIDTH, o ? o->top : 10, 0, o && o->full, o && o->wide, 0};
    if (c.width <= 0)
        c.width = BASE_WIDTH;
    if (c.width < MIN_WIDTH)
        c.width = MIN_WIDTH;
    if (c.width > MAX_WIDTH)
        c.width = MAX_WIDTH;
    c.extra = c.width - BASE_WIDTH;
    if (c.top < 1)
        c.top = 10;
    c.program_ns = r->program.wall_ns;
    if (r->merged_processes > 1)
        c.program_ns = c.program_ns > UINT64_MAX / r->merged_processes
                           ? UINT64_MAX
                           : c.program_ns * r->merged_processes;

    struct tp_op **order = calloc(r->nops ? r->nops : 1, sizeof *order);
    if (!order) {
        b->oom = 1;
        return;
    }
    for (size_t i = 0; i < r->nops; i++)
        order[i] = &r->ops[i];
    qsort(order, r->nops, sizeof *order, by_self);
    size_t n = r->nops < (size_t)c.top ? r->nops : (size_t)c.top;
    if (o && o->term > c.width)
        fit_names(&c, order, n, o->term);

    if (c.full) /* the short report keeps its every line for the terminal */
        tp_buf_puts(b, "\n");
    header(&c);
    if (!c.full) {
        /* The short report: what fits a terminal, the answer last, where it stays on screen. */
        if (r->nops)
            ops_table(&c, order, n < SHORT_OPS ? n : SHORT_OPS);
        tp_text_steps(&c);
        tp_text_memory(&c);
        tp_text_sites(&c);
        tp_text_gpu(&c);
        outputs(&c);
        tp_text_verdict(&c);
        free(order);
        return;
    }
    if (r->nops) {
        ops_table(&c, order, n);
        spread_table(&c, order, n);
        tp_text_waits(&c);
        latency_table(&c, order, n);
        shapes(&c, order, n);
    }
    tp_text_steps(&c);
    tp_text_verdict(&c);
    tp_text_amdahl(&c);
    tp_text_memory(&c);
    tp_text_sites(&c);
    tp_text_gpu(&c);
    outputs(&c);
    free(order);
}
