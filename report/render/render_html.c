/* The HTML report (TPROF_HTML, `tprof report --html`): one self-contained page. The tables are
 * written here from the model; the charts are drawn in the browser by report/render/html_page.js from
 * the JSON report embedded in the page, so that the page holds exactly the JSON's data and
 * `tprof report --html` of a saved JSON gives the page the run gave. Nothing is fetched: the
 * style and the script are inline (report/html_assets.inc is generated from html_page.css and
 * html_page.js by the build). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "report/analyze/analyze.h"
#include "report/html_assets.inc"
#include "report/peaks/peaks.h"
#include "common/names/names.h"
#include "report/render/render.h"
#include "report/render/render_html.h"
#include "report/units.h"

/* The text report's line under the verdict. The allocator's time is an estimate: "~", and its
 * method on hover. */
static void times_line(struct tp_buf *b, const struct tp_report *r)
{
    const struct tp_verdict *v = &r->verdict;
    uint64_t w = r->program.wall_ns, k = r->merged_processes;
    if (k > 1) /* the processes' time side by side, as the text report's percentages */
        w = w > UINT64_MAX / k ? UINT64_MAX : w * k;
    char t[32], p[32];
    tp_buf_puts(b, "<p id=\"times\">");
    if (r->nops && v->threads_wall_ns && r->nthreads > 1) {
        int est;
        const char *basis = tp_outside_basis(r, &est);
        uint64_t theirs = basis ? v->threads_time_ns : v->threads_wall_ns;
        tp_buf_printf(b, "time outside every op, summed over %zu threads", r->nthreads);
        if (basis)
            tp_buf_printf(b, " (%s)", basis);
        tp_buf_printf(
            b, ": %s%s (%s of theirs); ", est ? "~" : "", tp_fmt_ns(v->outside_ops_ns, t, sizeof t),
            tp_fmt_pct(theirs ? (double)v->outside_ops_ns / (double)theirs : 0, 8, p, sizeof p));
    } else if (r->nops)
        tp_buf_printf(b, "time outside every op: %s (%s); ",
                      tp_fmt_ns(v->outside_ops_ns, t, sizeof t),
                      tp_fmt_pct(w ? (double)v->outside_ops_ns / (double)w : 0, 8, p, sizeof p));
    tp_buf_printf(b, "%s the allocator: <span title=\"", r->nops ? "inside" : "time inside");
    tp_html_esc(b, r->memory.alloc_ns_method ? r->memory.alloc_ns_method : "an estimate");
    tp_buf_printf(b, "\">~%s</span> (%s)</p>\n", tp_fmt_ns(v->alloc_ns, t, sizeof t),
                  tp_fmt_pct(w ? (double)v->alloc_ns / (double)w : 0, 8, p, sizeof p));
    struct tp_buf s;
    tp_buf_init(&s);
    if (tp_outside_samples_line(r, &s)) {
        tp_buf_puts(b, "<p id=\"outside-samples\">");
        tp_html_esc(b, tp_buf_str(&s));
        tp_buf_puts(b, "</p>\n");
    }
    tp_buf_free(&s);
    if (tp_hooks_worth_saying(r->program.hooks_ns, w))
        tp_buf_printf(b,
                      "<p id=\"hooks\">tprof's own hooks inside the ops: ~%s (%s), taken out of "
                      "the ops' times and out of the time outside every op</p>\n",
                      tp_fmt_ns(r->program.hooks_ns, t, sizeof t),
                      tp_fmt_pct(w ? (double)r->program.hooks_ns / (double)w : 0, 8, p, sizeof p));
}

static void header(const struct tp_report *r, struct tp_buf *b)
{
    const struct tp_program *p = &r->program;
    char w[32];
    tp_buf_puts(b, "<h1>tprof ");
    tp_html_esc(b, r->tprof_version);
    tp_buf_puts(b, ": ");
    for (size_t i = 0; i < p->argc; i++) {
        if (i)
            tp_buf_putc(b, ' ');
        tp_html_esc(b, p->argv[i]);
    }
    if (r->merged_processes > 1) /* as the text's header says it: no one pid */
        tp_buf_printf(b,
                      "</h1>\n<p class=\"meta\" id=\"merged\">merged from %llu processes (%llu "
                      "threads); longest wall time %s; shares are of %llu x that",
                      (unsigned long long)r->merged_processes, (unsigned long long)p->threads,
                      tp_fmt_ns(p->wall_ns, w, sizeof w), (unsigned long long)r->merged_processes);
    else {
        tp_buf_printf(b, "</h1>\n<p class=\"meta\">pid %lld, wall time %s, threads %llu, host ",
                      (long long)p->pid, tp_fmt_ns(p->wall_ns, w, sizeof w),
                      (unsigned long long)p->threads);
        tp_html_esc(b, p->host);
    }
    tp_buf_puts(b, "</p>\n");
    /* the same lines as the text report's header: the CPUs and the load, the peaks with their
     * source, age and conditions */
    char line[600];
    if (tp_cpu_header(p, line, sizeof line)) {
        tp_buf_puts(b, "<p class=\"meta\" id=\"cpu-header\">");
        tp_html_esc(b, line);
        tp_buf_puts(b, "</p>\n");
    }
    tp_buf_puts(b, "<p class=\"meta\" id=\"peaks-header\">");
    if (r->machine.peak_gflops > 0 && r->machine.peak_gbps > 0)
        tp_html_esc(b, tp_peaks_header(r, line, sizeof line));
    else
        tp_html_esc(b, "machine peaks unknown: no roofline (run `tprof calibrate`, or set "
                       "TPROF_PEAK_GFLOPS and _GBPS)");
    tp_buf_puts(b, "</p>\n");
    for (size_t i = 0; i < r->nnotes; i++) {
        tp_buf_puts(b, "<p class=\"note\">note: ");
        tp_html_esc(b, r->notes[i]);
        tp_buf_puts(b, "</p>\n");
    }
    tp_buf_puts(b, "<h2>Verdict</h2>\n");
    if (r->verdict.cpu_text) {
        tp_buf_puts(b, "<p class=\"verdict\" id=\"cpu-verdict\">");
        tp_html_esc(b, r->verdict.cpu_text);
        tp_buf_puts(b, "</p>\n");
    }
    tp_buf_puts(b, "<p class=\"verdict\" id=\"verdict\">");
    tp_html_esc(b, r->verdict.text ? r->verdict.text : "no ops were seen");
    tp_buf_puts(b, "</p>\n");
    if (r->verdict.wait_text) {
        tp_buf_puts(b, "<p class=\"verdict\" id=\"wait-verdict\">");
        tp_html_esc(b, r->verdict.wait_text);
        tp_buf_puts(b, "</p>\n");
    }
    times_line(b, r);
}

/* Above 100% of the roofline, the cell says why in a word, as the text report's does, and in
 * words on hover; the legend under the table says it too. */
static void eff_cell(struct tp_buf *b, const struct tp_machine *m, const struct tp_op *o)
{
    char s[48], word[16], why[256];
    if (!tp_peaks_over_shown(o->efficiency)) {
        /* as the verdict's "<1%": 0.3% reads as precise, which a roofline share is not */
        if (o->efficiency > 0 && 100 * o->efficiency < 0.5)
            snprintf(s, sizeof s, "<1%%");
        else
            tp_fmt_pct(o->efficiency, 6, s, sizeof s);
        tp_html_num(b, o->efficiency, s);
        return;
    }
    tp_peaks_over(m, o->bound, 1, word, sizeof word);
    tp_peaks_over(m, o->bound, 0, why, sizeof why);
    tp_buf_printf(b, "<td data-v=\"%.17g\" title=\"above 100%%: ", o->efficiency);
    tp_html_esc(b, why);
    tp_buf_puts(b, "\">");
    tp_html_esc(b, tp_fmt_pct(o->efficiency, 6, s, sizeof s));
    tp_buf_puts(b, " &gt;");
    tp_html_esc(b, word);
    tp_buf_puts(b, "</td>");
}

/* The share of the op's time spent waiting for other threads, "~" when from CPU samples
 * (report/analyze/opwait.c); "-" when no waiting was seen. */
static void wait_cell(struct tp_buf *b, const struct tp_op *o)
{
    char s[48], t[56];
    if (!o->wait_ns) {
        tp_html_num(b, -1, "-");
        return;
    }
    snprintf(t, sizeof t, "%s%s", tp_op_wait_estimated(o) ? "~" : "",
             tp_fmt_pct(o->wait_share, 8, s, sizeof s));
    tp_html_num(b, o->wait_share, t);
}

static void op_row(struct tp_buf *b, const struct tp_machine *m, const struct tp_op *o)
{
    char s[48];
    tp_buf_puts(b, "<tr>");
    tp_html_name(b, o->name);
    tp_html_text(b, o->kind);
    tp_html_num(b, (double)o->calls, tp_fmt_count(o->calls, s, sizeof s));
    if (o->demoted) {
        /* counted, not timed: the total an estimate, the self time its callers' (the legend) */
        char t[48];
        uint64_t est = o->total_ns + o->counted_est_ns;
        snprintf(s, sizeof s, "~%s", tp_fmt_ns(est, t, sizeof t));
        tp_html_num(b, (double)est, s);
        tp_html_num(b, -1, "counted");
        tp_html_num(b, -1, "-");
    } else {
        tp_html_num(b, (double)o->total_ns, tp_fmt_ns(o->total_ns, s, sizeof s));
        tp_html_num(b, (double)o->self_ns, tp_fmt_ns(o->self_ns, s, sizeof s));
        tp_html_num(b, o->self_share, tp_fmt_pct(o->self_share, 8, s, sizeof s));
    }
    wait_cell(b, o);
    int roof = o->flops_known && o->flops > 0;
    tp_html_num(b, roof ? o->gflops : -1, roof ? tp_fmt_num(o->gflops, 2, 8, s, sizeof s) : "-");
    tp_html_num(b, roof ? o->intensity : -1,
                roof ? tp_fmt_num(o->intensity, 1, 6, s, sizeof s) : "-");
    /* the bound and efficiency as the text's: an op with bytes and no FLOPs is memory-bound */
    int bound = o->bound && (!strcmp(o->bound, "compute") || !strcmp(o->bound, "memory"));
    tp_html_text(b, bound ? o->bound : "-");
    if (bound && o->efficiency > 0)
        eff_cell(b, m, o);
    else
        tp_html_num(b, -1, "-");
    tp_html_num(b, (double)o->latency.p50,
                o->latency.n ? tp_fmt_ns(o->latency.p50, s, sizeof s) : "-");
    tp_html_num(b, (double)o->alloc_bytes, tp_fmt_bytes(o->alloc_bytes, s, sizeof s));
    tp_buf_puts(b, "</tr>\n");
}

/* Most self time first, as the text report; ties by name, so that the order is the same each time */
static int by_self(const void *x, const void *y)
{
    const struct tp_op *a = *(const struct tp_op *const *)x, *c = *(const struct tp_op *const *)y;
    if (a->self_ns != c->self_ns)
        return a->self_ns < c->self_ns ? 1 : -1;
    return strcmp(a->name ? a->name : "", c->name ? c->name : "");
}

static void ops_table(const struct tp_report *r, struct tp_buf *b)
{
    static const char *const h[] = {"op",    "kind",  "calls",    "total", "self",
                                    "self%", "wait%", "GFLOP/s",  "AI",    "bound",
                                    "eff%",  "p50",   "allocated"};
    tp_buf_puts(b, "<h2>Ops (click a column to sort)</h2>\n");
    if (!r->nops) {
        tp_buf_puts(b, "<p class=\"none\">No ops were seen.</p>\n");
        return;
    }
    const struct tp_op **v = calloc(r->nops, sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < r->nops; i++)
        v[i] = &r->ops[i];
    qsort(v, r->nops, sizeof *v, by_self);
    tp_buf_puts(b, "<table class=\"sortable\" id=\"ops\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    const char *said[2] = {NULL, NULL}; /* the legend: once per bound */
    int counted = 0;
    for (size_t i = 0; i < r->nops; i++) {
        op_row(b, &r->machine, v[i]);
        counted |= v[i]->demoted;
        int mem = v[i]->bound && !strcmp(v[i]->bound, "memory");
        if (v[i]->flops_known && v[i]->efficiency > 0 && v[i]->bound &&
            tp_peaks_over_shown(v[i]->efficiency))
            said[mem] = v[i]->bound;
    }
    tp_buf_puts(b, "</tbody></table>\n");
    if (counted)
        tp_buf_puts(b, "<p class=\"note\" id=\"counted-legend\">counted: an op too short to time "
                       "(TPROF_DEMOTE): its calls after the first 65 were counted, not timed, so "
                       "its time is in its callers' self time; its total, ~, is an estimate: its "
                       "calls times the median of its judged calls, at most the self time of "
                       "the ops its counted calls ran in.</p>\n");
    for (int k = 0; k < 2; k++) {
        char word[16], why[256];
        if (!said[k])
            continue;
        tp_peaks_over(&r->machine, said[k], 1, word, sizeof word);
        tp_peaks_over(&r->machine, said[k], 0, why, sizeof why);
        tp_buf_printf(b, "<p class=\"note\">&gt;%s: above 100%% (%s-bound): ", word, said[k]);
        tp_html_esc(b, why);
        tp_buf_puts(b, "</p>\n");
    }
    free(v);
}

/* The ops with shapes, most time first: their shapes, most time first. */
static int by_total(const void *x, const void *y)
{
    const struct tp_op *a = *(const struct tp_op *const *)x, *c = *(const struct tp_op *const *)y;
    return a->total_ns < c->total_ns ? 1 : a->total_ns > c->total_ns ? -1 : 0;
}

static int by_shape_total(const void *x, const void *y)
{
    const struct tp_shape *a = *(const struct tp_shape *const *)x,
                          *c = *(const struct tp_shape *const *)y;
    if (a->total_ns != c->total_ns)
        return a->total_ns < c->total_ns ? 1 : -1;
    return a->calls < c->calls ? 1 : a->calls > c->calls ? -1 : 0;
}

static void shapes_table(const struct tp_report *r, struct tp_buf *b, int top)
{
    static const char *const h[] = {"op", "shape", "calls", "total", "GFLOP/s", "AI"};
    const struct tp_op **v = calloc(r->nops ? r->nops : 1, sizeof *v);
    size_t n = 0;
    if (!v)
        return;
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].nshapes)
            v[n++] = &r->ops[i];
    qsort(v, n, sizeof *v, by_total);
    tp_buf_puts(b, "<h2>Shapes of the top ops</h2>\n");
    if (!n)
        tp_buf_puts(b, "<p class=\"none\">No op with known shapes.</p>\n");
    else {
        tp_buf_puts(b, "<table class=\"sortable\" id=\"shapes\">");
        tp_html_head(b, h, sizeof h / sizeof h[0]);
    }
    for (size_t i = 0; i < n && i < (size_t)top; i++) {
        /* an op's shapes most time first, as the text's */
        const struct tp_shape **sv = calloc(v[i]->nshapes, sizeof *sv);
        if (!sv)
            break;
        for (size_t k = 0; k < v[i]->nshapes; k++)
            sv[k] = &v[i]->shapes[k];
        qsort(sv, v[i]->nshapes, sizeof *sv, by_shape_total);
        for (size_t k = 0; k < v[i]->nshapes && k < (size_t)top; k++) {
            const struct tp_shape *s = sv[k];
            char t[48];
            double gf = s->total_ns ? (double)s->flops / (double)s->total_ns : 0;
            double ai = s->bytes ? (double)s->flops / (double)s->bytes : 0;
            tp_buf_puts(b, "<tr>");
            tp_html_text(b, v[i]->name);
            tp_html_text(b, s->desc);
            tp_html_num(b, (double)s->calls, tp_fmt_count(s->calls, t, sizeof t));
            tp_html_num(b, (double)s->total_ns, tp_fmt_ns(s->total_ns, t, sizeof t));
            tp_html_num(b, gf, s->flops ? tp_fmt_num(gf, 2, 8, t, sizeof t) : "-");
            tp_html_num(b, ai, s->flops && s->bytes ? tp_fmt_num(ai, 1, 6, t, sizeof t) : "-");
            tp_buf_puts(b, "</tr>\n");
        }
        free(sv);
    }
    if (n)
        tp_buf_puts(b, "</tbody></table>\n");
    free(v);
}

static void leaks_table(const struct tp_report *r, struct tp_buf *b)
{
    static const char *const h[] = {"site", "bytes", "blocks"};
    const struct tp_memory *m = &r->memory;
    struct tp_leak_split ls;
    char x[32], y[32], z[32];
    tp_leak_split(m, &ls);
    tp_buf_printf(
        b, "<h2>Leaks</h2>\n<p id=\"leak-summary\">At exit: the program %s in %llu blocks;",
        tp_fmt_bytes(ls.program_bytes, x, sizeof x), (unsigned long long)ls.program_allocs);
    if (ls.interpreter_bytes)
        tp_buf_printf(b, " the interpreter keeps %s (its objects and modules at exit);",
                      tp_fmt_bytes(ls.interpreter_bytes, x, sizeof x));
    tp_buf_printf(b, " system libraries keep %s; suppressed %s.</p>\n",
                  tp_fmt_bytes(ls.system_bytes, y, sizeof y),
                  tp_fmt_bytes(ls.suppressed_bytes, z, sizeof z));
    size_t n = 0;
    for (size_t i = 0; i < m->nsites; i++)
        n += m->sites[i].live_at_exit_bytes && !m->sites[i].system && !m->sites[i].suppressed &&
             !m->sites[i].interpreter;
    if (!n)
        return;
    tp_buf_puts(b, "<table class=\"sortable\" id=\"leaks\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        if (!s->live_at_exit_bytes || s->system || s->suppressed || s->interpreter)
            continue;
        tp_buf_puts(b, "<tr>");
        tp_html_site(b, s);
        tp_html_num(b, (double)s->live_at_exit_bytes,
                    tp_fmt_bytes(s->live_at_exit_bytes, x, sizeof x));
        tp_html_num(b, (double)s->live_at_exit_allocs,
                    tp_fmt_count(s->live_at_exit_allocs, y, sizeof y));
        tp_buf_puts(b, "</tr>\n");
    }
    tp_buf_puts(b, "</tbody></table>\n");
}

static void memory_line(const struct tp_report *r, struct tp_buf *b)
{
    const struct tp_memory *m = &r->memory;
    char pk[32], at[32], pe[32], tr[32];
    tp_buf_printf(b, "<p id=\"heap-summary\">peak heap %s at %s into the run",
                  tp_fmt_bytes(m->peak_bytes, pk, sizeof pk), tp_fmt_ns(m->peak_ns, at, sizeof at));
    if (m->peak_op) {
        tp_buf_puts(b, ", inside ");
        tp_html_esc(b, m->peak_op);
    }
    if (m->lifetime_unit)
        tp_buf_printf(b, "; %s persistent (outlives its %s), %s transient",
                      tp_fmt_bytes(m->persistent_bytes, pe, sizeof pe), tp_lifetime_noun(m),
                      tp_fmt_bytes(m->transient_bytes, tr, sizeof tr));
    tp_buf_puts(b, "</p>\n<p class=\"key\"><span class=\"persistent\" "
                   "style=\"background:#7a9cc6\"></span>persistent<span "
                   "style=\"background:#f3c98b\"></span>transient</p>\n");
}

/* The JSON report, inside a script element: "</" would end the element, so it is "<\/". */
static void data(const struct tp_report *r, struct tp_buf *b)
{
    struct tp_buf j;
    tp_buf_init(&j);
    tp_render_json(r, &j);
    tp_buf_puts(b, "<script type=\"application/json\" id=\"tprof-data\">");
    for (size_t i = 0; i < j.len; i++) {
        if (j.p[i] == '<' && i + 1 < j.len && j.p[i + 1] == '/')
            tp_buf_puts(b, "<\\");
        else
            tp_buf_putc(b, j.p[i]);
    }
    tp_buf_puts(b, "</script>\n");
    if (!tp_buf_ok(&j))
        b->oom = 1;
    tp_buf_free(&j);
}

/* what: the note on what the chart shows; NULL for none (a chart with nothing to show, which
 * the script says in its place) */
static void chart(struct tp_buf *b, const char *id, const char *title, const char *what)
{
    tp_buf_printf(b, "<h2>%s</h2>\n", title);
    if (what)
        tp_buf_printf(b, "<p class=\"note\">%s</p>\n", what);
    tp_buf_printf(b, "<div class=\"chart\" id=\"%s\"></div>\n", id);
}

void tp_render_html(const struct tp_report *r, int top, struct tp_buf *b)
{
    tp_buf_puts(
        b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>tprof: ");
    tp_html_esc(b, r->program.exe);
    tp_buf_puts(b, "</title>\n<style>\n");
    tp_buf_puts(b, tp_html_css);
    tp_buf_puts(b, "</style>\n</head>\n<body>\n");
    header(r, b);
    tp_html_amdahl(r, b, top);
    ops_table(r, b);
    tp_html_procs(r, b, top);
    chart(b, "flame-time", "Op time (flame graph)",
          "Each op under the op that called it; width: total time. Hover for total and self.");
    tp_buf_puts(b, "<h2>Heap over time</h2>\n");
    memory_line(r, b);
    tp_buf_puts(b, "<div class=\"chart\" id=\"heap-time\"></div>\n");
    chart(b, "rss-time", "Memory over time (RSS by part)",
          r->memory.nledger_series
              ? "The resident memory at each reading of the memory ledger, by part, the heap at "
                "the bottom; the marker is the highest reading, whose parts the table below "
                "lists. Hover for a part or a reading."
              : NULL);
    tp_html_ledger(r, b);
    chart(b, "flame-heap", "Heap at the peak (flame graph)",
          "The call sites holding the peak, the outermost caller on top; width: bytes live at the "
          "peak.");
    tp_html_steps(r, b);
    chart(b, "step-time", "Step latency over the run",
          "One point per step (the fastest and slowest of each stretch on long runs); warm-up "
          "shaded; the line is the median after warm-up.");
    chart(b, "latency", "Latency of the top ops",
          "Per call after warm-up: line min to max, box p50 to p95, thin box p95 to p99.");
    shapes_table(r, b, top);
    tp_html_sites(r, b, top);
    leaks_table(r, b);
    tp_html_gpu(r, b, top);
    data(r, b);
    tp_buf_puts(b, "<script>\n");
    tp_buf_puts(b, tp_html_js);
    tp_buf_puts(b, "</script>\n</body></html>\n");
}
