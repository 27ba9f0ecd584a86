/* The HTML page's tables that match the text report's (report/render/render_html.h), so that
 * the page has all the text has: the Amdahl table, the per-process spread of a merged report,
 * the steps' summary (which a merged report has with no series to chart), the call sites
 * holding the heap peak, and the memory ledger (which the text report does not have yet).
 * Numbers are sortable cells with their exact values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/render_html.h"
#include "report/units.h"

void tp_html_amdahl(const struct tp_report *r, struct tp_buf *b, int top)
{
    static const char *const h[] = {"if this op ran...", "wall%", "2x faster", "in no time"};
    const struct tp_verdict *v = &r->verdict;
    if (!v->namdahl)
        return;
    tp_buf_puts(b, "<h2>Amdahl</h2>\n<table class=\"sortable\" id=\"amdahl\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < v->namdahl && i < (size_t)top; i++) {
        const struct tp_amdahl *a = &v->amdahl[i];
        char t[48], x[48];
        tp_buf_puts(b, "<tr>");
        tp_html_name(b, a->op);
        tp_html_num(b, a->share, tp_fmt_pct(a->share, 8, t, sizeof t));
        snprintf(x, sizeof x, "%sx", tp_fmt_num(a->speedup_2x, 2, 15, t, sizeof t));
        tp_html_num(b, a->speedup_2x, x);
        if (a->speedup_max > 0)
            snprintf(x, sizeof x, "%sx", tp_fmt_num(a->speedup_max, 2, 15, t, sizeof t));
        else
            snprintf(x, sizeof x, "no bound"); /* the op ran all the time */
        tp_html_num(b, a->speedup_max, x);
        tp_buf_puts(b, "</tr>\n");
    }
    tp_buf_puts(b, "</tbody></table>\n");
}

void tp_html_procs(const struct tp_report *r, struct tp_buf *b, int top)
{
    static const char *const h[] = {
        "op (total time per process)", "procs", "min", "mean", "max", "imbalance"};
    if (r->merged_processes < 2)
        return;
    size_t n = 0;
    for (size_t i = 0; i < r->nops; i++)
        n += r->ops[i].nprocs > 1;
    if (!n) /* a merged report's ops count every process: none only without ops */
        return;
    tp_buf_printf(b,
                  "<h2>Per process</h2>\n<p class=\"note\">Each op's total time in each of the "
                  "%llu processes: the least, the mean, the most, and the imbalance (most / "
                  "mean).</p>\n",
                  (unsigned long long)r->merged_processes);
    tp_buf_puts(b, "<table class=\"sortable\" id=\"procs\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    size_t shown = 0;
    for (size_t i = 0; i < r->nops && shown < (size_t)top; i++) {
        const struct tp_op *o = &r->ops[i];
        if (o->nprocs < 2)
            continue;
        char t[48], x[48];
        tp_buf_puts(b, "<tr>");
        tp_html_name(b, o->name);
        tp_html_num(b, (double)o->nprocs, tp_fmt_count(o->nprocs, t, sizeof t));
        tp_html_num(b, o->proc_min_ns, tp_fmt_ns((uint64_t)o->proc_min_ns, t, sizeof t));
        tp_html_num(b, o->proc_mean_ns, tp_fmt_ns((uint64_t)o->proc_mean_ns, t, sizeof t));
        tp_html_num(b, o->proc_max_ns, tp_fmt_ns((uint64_t)o->proc_max_ns, t, sizeof t));
        snprintf(x, sizeof x, "%sx", tp_fmt_num(o->imbalance, 2, 9, t, sizeof t));
        tp_html_num(b, o->imbalance, x);
        tp_buf_puts(b, "</tr>\n");
        shown++;
    }
    tp_buf_puts(b, "</tbody></table>\n");
}

void tp_html_steps(const struct tp_report *r, struct tp_buf *b)
{
    const struct tp_steps *s = &r->steps;
    if (!s->count)
        return;
    char p50[32], p95[32], p99[32], lo[32], hi[32];
    tp_buf_printf(b, "<h2>Steps</h2>\n<p id=\"steps-summary\">%llu step%s of ",
                  (unsigned long long)s->count, s->count == 1 ? "" : "s");
    tp_html_esc(b, s->name ? s->name : "?");
    tp_buf_printf(b, ", %llu of them warm-up", (unsigned long long)s->warmup);
    if (s->latency.n)
        tp_buf_printf(b, "; latency per step p50 %s (95%% interval %s to %s), p95 %s, p99 %s",
                      tp_fmt_ns(s->latency.p50, p50, sizeof p50),
                      tp_fmt_ns((uint64_t)s->latency.p50_ci_lo, lo, sizeof lo),
                      tp_fmt_ns((uint64_t)s->latency.p50_ci_hi, hi, sizeof hi),
                      tp_fmt_ns(s->latency.p95, p95, sizeof p95),
                      tp_fmt_ns(s->latency.p99, p99, sizeof p99));
    tp_buf_puts(b, "</p>\n");
}

static int by_at_peak(const void *x, const void *y)
{
    const struct tp_site *a = *(const struct tp_site *const *)x,
                         *c = *(const struct tp_site *const *)y;
    if (a->live_at_peak_bytes != c->live_at_peak_bytes)
        return a->live_at_peak_bytes < c->live_at_peak_bytes ? 1 : -1;
    return a->peak_live_bytes < c->peak_live_bytes ? 1 : a->peak_live_bytes > c->peak_live_bytes;
}

void tp_html_sites(const struct tp_report *r, struct tp_buf *b, int top)
{
    static const char *const h[] = {"site", "at peak", "own peak", "allocs", "bytes"};
    const struct tp_memory *m = &r->memory;
    const struct tp_site **v = calloc(m->nsites ? m->nsites : 1, sizeof *v);
    size_t n = 0;
    if (!v)
        return;
    for (size_t i = 0; i < m->nsites; i++)
        if (m->sites[i].live_at_peak_bytes || m->sites[i].peak_live_bytes)
            v[n++] = &m->sites[i];
    qsort(v, n, sizeof *v, by_at_peak);
    if (n) {
        tp_buf_puts(b, "<h2>Call sites holding the peak</h2>\n<table class=\"sortable\" "
                       "id=\"sites\">");
        tp_html_head(b, h, sizeof h / sizeof h[0]);
    }
    for (size_t i = 0; i < n && i < (size_t)top; i++) {
        const struct tp_site *s = v[i];
        char t[48];
        tp_buf_puts(b, "<tr>");
        tp_html_site(b, s);
        tp_html_num(b, (double)s->live_at_peak_bytes,
                    tp_fmt_bytes(s->live_at_peak_bytes, t, sizeof t));
        tp_html_num(b, (double)s->peak_live_bytes, tp_fmt_bytes(s->peak_live_bytes, t, sizeof t));
        tp_html_num(b, (double)s->allocs, tp_fmt_count(s->allocs, t, sizeof t));
        tp_html_num(b, (double)s->bytes, tp_fmt_bytes(s->bytes, t, sizeof t));
        tp_buf_puts(b, "</tr>\n");
    }
    if (n)
        tp_buf_puts(b, "</tbody></table>\n");
    free(v);
}

/* The memory ledger (track/heap/ledger.c): the parts of the resident memory at its highest
 * reading, in the JSON's order (most resident first, the part no reading explained last), so
 * that the rows add up to the peak RSS as the JSON's do. */
void tp_html_ledger(const struct tp_report *r, struct tp_buf *b)
{
    static const char *const h[] = {"part", "what", "resident", "mapped", "share of peak RSS"};
    const struct tp_memory *m = &r->memory;
    char pk[32], at[32], rss[32], pss[32], t[48];
    if (!m->nledger)
        return;
    tp_buf_printf(b,
                  "<h2>Where the RSS went</h2>\n<p id=\"rss-summary\">peak RSS %s; the parts "
                  "are from the reading at %s into the run, the highest RSS of %llu reading%s (",
                  tp_fmt_bytes(m->peak_rss_bytes, pk, sizeof pk),
                  tp_fmt_ns(m->peak_rss_ns, at, sizeof at), (unsigned long long)m->ledger_reads,
                  m->ledger_reads == 1 ? "" : "s");
    tp_html_esc(b, m->ledger_method ? m->ledger_method : "?");
    tp_buf_printf(b, "): RSS %s, PSS %s.</p>\n", tp_fmt_bytes(m->ledger_rss_bytes, rss, sizeof rss),
                  tp_fmt_bytes(m->ledger_pss_bytes, pss, sizeof pss));
    tp_buf_puts(b, "<table class=\"sortable\" id=\"ledger\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < m->nledger; i++) {
        const struct tp_ledger_row *row = &m->ledger[i];
        double share = m->peak_rss_bytes ? (double)row->resident_bytes / m->peak_rss_bytes : 0;
        tp_buf_puts(b, "<tr>");
        tp_html_text(b, row->kind ? row->kind : "?");
        tp_html_text(b, row->name ? row->name : "-");
        tp_html_num(b, (double)row->resident_bytes, tp_fmt_bytes(row->resident_bytes, t, sizeof t));
        /* nothing mapped (the unexplained part, which no reading saw): "-", not "0 B" */
        tp_html_num(b, (double)row->mapped_bytes,
                    row->mapped_bytes ? tp_fmt_bytes(row->mapped_bytes, t, sizeof t) : "-");
        tp_html_num(b, share, tp_fmt_pct(share, 8, t, sizeof t));
        tp_buf_puts(b, "</tr>\n");
    }
    tp_buf_puts(b, "</tbody></table>\n");
}
