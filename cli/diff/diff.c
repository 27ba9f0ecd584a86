/* tprof diff: what changed between two runs, op by op and site by site, biggest change first.
 *
 * Ops are matched by name, call sites by their frames (cli/read/sitekey.c). An op or site found in
 * one report only is "added" or "removed"; its absent side counts as zero in deltas. The text
 * form shows each op or site as a name line and three rows (before, after, change) on a grid of
 * a 20-column label and four 20-column cells, so that it fits 100 columns; the JSON form
 * (docs/cli.md) has every figure exactly. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "cli/diff/diff.h"
#include "cli/diff/diff_grid.h"
#include "cli/read/read.h"
#include "report/units.h"

static double gflops(uint64_t flops, uint64_t ns)
{
    return ns ? (double)flops / (double)ns : 0; /* FLOP/ns == GFLOP/s */
}

static struct tp_dfig fig_gflops(const struct oprow *r)
{
    struct tp_dfig f = {r->has_a, r->has_b, 1, 0, 0, 0, 0, 0};
    f.da = r->has_a ? gflops(r->flops[0], r->total[0]) : 0;
    f.db = r->has_b ? gflops(r->flops[1], r->total[1]) : 0;
    f.unknown = (r->has_a && !r->flops[0]) || (r->has_b && !r->flops[1]);
    return f;
}

/* ---- ops: grouped by name within each report, then matched across the two ---- */

static int by_name(const void *x, const void *y)
{
    const struct tp_op *a = *(const struct tp_op *const *)x, *b = *(const struct tp_op *const *)y;
    return strcmp(a->name, b->name);
}

/* The report's ops sorted by name (names are never NULL: the reader requires them). */
static const struct tp_op **sorted_ops(const struct tp_report *r)
{
    const struct tp_op **v = calloc(r->nops ? r->nops : 1, sizeof *v);
    for (size_t i = 0; v && i < r->nops; i++)
        v[i] = &r->ops[i];
    if (v)
        qsort(v, r->nops, sizeof *v, by_name);
    return v;
}

static void add_side(struct oprow *row, int side, const struct tp_op *o)
{
    if (side == 0)
        row->has_a = 1;
    else
        row->has_b = 1;
    row->calls[side] += o->calls;
    row->total[side] += o->total_ns;
    row->self[side] += o->self_ns;
    row->flops[side] += o->flops;
    if (!row->lat[side])
        row->lat[side] = &o->latency;
    if (!row->kind)
        row->kind = o->kind;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static int by_op_impact(const void *x, const void *y)
{
    const struct oprow *a = x, *b = y;
    uint64_t ia = absdiff(a->total[0], a->total[1]), ib = absdiff(b->total[0], b->total[1]);
    if (ia != ib)
        return ia < ib ? 1 : -1;
    ia = absdiff(a->self[0], a->self[1]);
    ib = absdiff(b->self[0], b->self[1]);
    if (ia != ib)
        return ia < ib ? 1 : -1;
    return strcmp(a->name, b->name);
}

/* Rows for every op name of either report, sorted by impact. -1 when out of memory. */
static int op_rows(const struct tp_report *A, const struct tp_report *B, struct oprow **out,
                   size_t *n)
{
    const struct tp_op **a = sorted_ops(A), **b = sorted_ops(B);
    struct oprow *rows = calloc(A->nops + B->nops + 1, sizeof *rows);
    if (!a || !b || !rows) {
        free(a);
        free(b);
        free(rows);
        return -1;
    }
    size_t i = 0, j = 0, m = 0;
    while (i < A->nops || j < B->nops) {
        int c = i == A->nops ? 1 : j == B->nops ? -1 : strcmp(a[i]->name, b[j]->name);
        struct oprow *r = &rows[m++];
        r->name = c <= 0 ? a[i]->name : b[j]->name;
        /* A name repeated within one report adds up. */
        while (c <= 0 && i < A->nops && !strcmp(a[i]->name, r->name))
            add_side(r, 0, a[i++]);
        while (c >= 0 && j < B->nops && !strcmp(b[j]->name, r->name))
            add_side(r, 1, b[j++]);
    }
    for (size_t k = 0; k < m; k++)
        tp_diff_sig_mean(rows[k].lat[0], rows[k].lat[1], &rows[k].per_call);
    qsort(rows, m, sizeof *rows, by_op_impact);
    free(a);
    free(b);
    *out = rows;
    *n = m;
    return 0;
}

static void op_figs(const struct oprow *r, struct tp_dfig *f)
{
    f[0] = tp_dfig_u(r->has_a, r->calls[0], r->has_b, r->calls[1]);
    f[1] = tp_dfig_u(r->has_a, r->total[0], r->has_b, r->total[1]);
    f[2] = tp_dfig_u(r->has_a, r->self[0], r->has_b, r->self[1]);
    f[3] = fig_gflops(r);
}

/* ---- sites ---- */

static uint64_t speak(const struct tp_keyed_site *k)
{
    return k ? k->site.peak_live_bytes : 0;
}
static uint64_t slive(const struct tp_keyed_site *k)
{
    return k ? k->site.live_at_peak_bytes : 0;
}

static int by_site_impact(const void *x, const void *y)
{
    const struct siterow *a = x, *b = y;
    if (a->rolled != b->rolled) /* an unknown change after every known one */
        return a->rolled - b->rolled;
    uint64_t ia = absdiff(speak(a->a), speak(a->b)), ib = absdiff(speak(b->a), speak(b->b));
    if (ia != ib)
        return ia < ib ? 1 : -1;
    ia = absdiff(slive(a->a), slive(a->b));
    ib = absdiff(slive(b->a), slive(b->b));
    if (ia != ib)
        return ia < ib ? 1 : -1;
    return strcmp(a->a ? a->a->key : a->b->key, b->a ? b->a->key : b->b->key);
}

static size_t site_rows(const struct tp_keyed_site *a, size_t na, const struct tp_keyed_site *b,
                        size_t nb, struct siterow *rows)
{
    size_t i = 0, j = 0, m = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].key, b[j].key);
        rows[m].a = c <= 0 ? &a[i++] : NULL;
        rows[m].b = c >= 0 ? &b[j++] : NULL;
        m++;
    }
    return m;
}

static void site_figs(const struct siterow *r, struct tp_dfig *f)
{
    const struct tp_site *a = r->a ? &r->a->site : NULL, *b = r->b ? &r->b->site : NULL;
    f[0] = tp_dfig_u(!!a, a ? a->peak_live_bytes : 0, !!b, b ? b->peak_live_bytes : 0);
    f[1] = tp_dfig_u(!!a, a ? a->live_at_peak_bytes : 0, !!b, b ? b->live_at_peak_bytes : 0);
    f[2] = tp_dfig_u(!!a, a ? a->allocs : 0, !!b, b ? b->allocs : 0);
    f[3] = tp_dfig_u(!!a, a ? a->bytes : 0, !!b, b ? b->bytes : 0);
    for (int i = 0; i < 4; i++)
        f[i].unknown = r->rolled;
}

/* Where a site is on each side: both, added, removed, or in a rolled-up row of one side. */
static const char *site_status(const struct siterow *r)
{
    if (r->rolled)
        return r->a ? "rolled_up_after" : "rolled_up_before";
    return !r->a ? "added" : !r->b ? "removed" : "both";
}

/* "frame0 <- frame1" of a site, for its name line. */
static void site_title(const struct tp_site *s, char *out, size_t n)
{
    char f0[256], f1[256], skip[32] = "";
    if (!s->nframes) {
        snprintf(out, n, "(no frames)");
        return;
    }
    /* past inline code of system headers, counted as in the report's rows */
    size_t i = tp_site_first_own(s);
    if (i)
        snprintf(skip, sizeof skip, "[%zu inlined] ", i);
    tp_fmt_frame(&s->frames[i], f0, sizeof f0);
    if (s->nframes < i + 2) {
        snprintf(out, n, "%s%s", skip, f0);
        return;
    }
    tp_fmt_frame(&s->frames[i + 1], f1, sizeof f1);
    snprintf(out, n, "%s%.200s <- %.200s", skip, f0, f1);
}

/* ---- what changed ---- */

/* An op changed: in one report only, called a different number of times, its time per call
 * changed significantly, or no interval can say (too few calls). */
static int op_changed(const struct oprow *r)
{
    return !r->has_a || !r->has_b || r->calls[0] != r->calls[1] || r->per_call.significant ||
           !r->per_call.known;
}

/* A site changed: in one report only, or any of its figures differ. */
static int site_changed(const struct siterow *r)
{
    const struct tp_site *a = r->a ? &r->a->site : NULL, *b = r->b ? &r->b->site : NULL;
    return !a || !b || a->peak_live_bytes != b->peak_live_bytes ||
           a->live_at_peak_bytes != b->live_at_peak_bytes || a->allocs != b->allocs ||
           a->bytes != b->bytes;
}

/* " per call +20.3% (95% interval +19.8% to +20.8%): significant" */
static void sig_words(const struct tp_dsig *s, const char *what, char *out, size_t n)
{
    if (!s->known) {
        snprintf(out, n, "  %s: too few calls for an interval", what);
        return;
    }
    snprintf(out, n, "  %s %+.1f%% (95%% interval %+.1f%% to %+.1f%%): %s", what, 100 * s->change,
             100 * s->lo, 100 * s->hi, s->significant ? "significant" : "not significant");
}

/* Two reports of different programs or machines: what is compared is not one program's change. */
static void warnings(const struct tp_report *A, const struct tp_report *B, struct tp_diff *d)
{
    const char *pa = A->program.exe, *pb = B->program.exe;
    if (pa && pb && strcmp(pa, pb)) {
        /* by their base names, unless those are the same */
        const char *ba = strrchr(pa, '/'), *bb = strrchr(pb, '/');
        ba = ba ? ba + 1 : pa;
        bb = bb ? bb + 1 : pb;
        if (!strcmp(ba, bb))
            ba = pa, bb = pb;
        snprintf(d->warnings[d->nwarnings++], sizeof d->warnings[0],
                 "different programs: %.120s before, %.120s after", ba, bb);
    }
    const char *ma = A->machine.cpu_model, *mb = B->machine.cpu_model;
    if ((ma && mb && strcmp(ma, mb)) ||
        (A->machine.peak_gflops > 0 && B->machine.peak_gflops > 0 &&
         (fabs(A->machine.peak_gflops / B->machine.peak_gflops - 1) > 0.1 ||
          fabs(A->machine.peak_gbps / B->machine.peak_gbps - 1) > 0.1)))
        snprintf(d->warnings[d->nwarnings++], sizeof d->warnings[0],
                 "different machines: %.80s, %.0f GFLOP/s, %.1f GB/s before; %.80s, %.0f GFLOP/s, "
                 "%.1f GB/s after",
                 ma ? ma : "CPU unknown", A->machine.peak_gflops, A->machine.peak_gbps,
                 mb ? mb : "CPU unknown", B->machine.peak_gflops, B->machine.peak_gbps);
}

/* ---- text ---- */

/* prefix and text wrapped at 100 columns at spaces, the lines after the first indented by 2:
 * a warning is never cut. */
static void wrap(struct tp_buf *b, const char *prefix, const char *text)
{
    size_t col = strlen(prefix);
    tp_buf_puts(b, prefix);
    for (const char *p = text; *p;) {
        const char *sp = strchr(p, ' ');
        size_t w = sp ? (size_t)(sp - p) : strlen(p);
        if (col > 2 && col + 1 + w > 100) {
            tp_buf_puts(b, "\n  ");
            col = 2;
        } else if (p != text) {
            tp_buf_putc(b, ' ');
            col++;
        }
        tp_buf_put(b, p, w);
        col += w;
        p += w;
        while (*p == ' ')
            p++;
    }
    tp_buf_putc(b, '\n');
}

/* Whether the text shows a row: one that changed (or every row, with --all), up to top of them;
 * the others counted as hidden or past the top, for the lines that say so. */
static int row_shown(int show, size_t top, size_t *shown, size_t *hidden, size_t *past)
{
    if (!show)
        ++*hidden;
    else if (*shown == top)
        ++*past;
    else
        return ++*shown, 1;
    return 0;
}

/* The OPS section: each changed op (all with --all) as a name line, its change per call with
 * its interval, and three rows. */
static void ops_text(const struct tp_diff *d, size_t top, struct tp_buf *b)
{
    const struct oprow *ops = d->ops;
    size_t nops = d->nops;
    char cells[4][40], line[512], fit[104];
    memset(cells, 0, sizeof cells);
    static const enum tp_dunit ou[] = {TP_DU_COUNT, TP_DU_NS, TP_DU_NS, TP_DU_GFLOPS};
    if (nops) {
        tp_dgrid_heading(b, "OPS (by change in total time)");
        snprintf(cells[0], sizeof cells[0], "calls");
        snprintf(cells[1], sizeof cells[1], "total time");
        snprintf(cells[2], sizeof cells[2], "self time");
        snprintf(cells[3], sizeof cells[3], "GFLOP/s");
        tp_dgrid_row(b, "op", cells, 4);
    }
    size_t shown = 0, hidden = 0, past = 0;
    for (size_t i = 0; i < nops; i++) {
        if (!row_shown(d->all || op_changed(&ops[i]), top, &shown, &hidden, &past))
            continue;
        struct tp_dfig f[4];
        op_figs(&ops[i], f);
        snprintf(line, sizeof line, "%s%s%s%s", ops[i].name, ops[i].kind ? " [" : "",
                 ops[i].kind ? ops[i].kind : "", ops[i].kind ? "]" : "");
        if (!ops[i].has_a || !ops[i].has_b)
            snprintf(line + strlen(line), sizeof line - strlen(line), "  (%s)",
                     ops[i].has_a ? "removed" : "added");
        tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
        if (ops[i].has_a && ops[i].has_b) {
            sig_words(&ops[i].per_call, "time per call", line, sizeof line);
            tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
        }
        tp_dgrid_rows(b, f, ou, 4);
    }
    if (past)
        tp_buf_printf(b, "(%zu more op%s; --top shows more)\n", past, past > 1 ? "s" : "");
    if (hidden)
        tp_buf_printf(b, "(%zu op%s without a significant change hidden; --all shows them)\n",
                      hidden, hidden > 1 ? "s" : "");
}

/* The CALL SITES section: each site whose figures changed (all with --all). */
static void sites_text(const struct tp_diff *d, size_t top, struct tp_buf *b)
{
    const struct siterow *sites = d->sites;
    size_t nsites = d->nsites, shown = 0, hidden = 0, past = 0;
    char cells[4][40], line[512], fit[104];
    memset(cells, 0, sizeof cells);
    static const enum tp_dunit su[] = {TP_DU_BYTES, TP_DU_BYTES, TP_DU_COUNT, TP_DU_BYTES};
    if (nsites) {
        tp_dgrid_heading(b, "CALL SITES (by change in their own peak)");
        snprintf(cells[0], sizeof cells[0], "own peak");
        snprintf(cells[1], sizeof cells[1], "live at heap peak");
        snprintf(cells[2], sizeof cells[2], "allocations");
        snprintf(cells[3], sizeof cells[3], "bytes allocated");
        tp_dgrid_row(b, "site", cells, 4);
    }
    for (size_t i = 0; i < nsites; i++) {
        if (!row_shown(d->all || site_changed(&sites[i]), top, &shown, &hidden, &past))
            continue;
        struct tp_dfig f[4];
        site_figs(&sites[i], f);
        const struct tp_keyed_site *k = sites[i].a ? sites[i].a : sites[i].b;
        site_title(&k->site, line, sizeof line);
        if (!sites[i].a || !sites[i].b)
            snprintf(line + strlen(line), sizeof line - strlen(line), "  (%s)",
                     sites[i].rolled ? (sites[i].a ? "rolled up after" : "rolled up before")
                     : sites[i].a    ? "removed"
                                     : "added");
        tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
        tp_dgrid_rows(b, f, su, 4);
    }
    if (past)
        tp_buf_printf(b, "(%zu more call site%s; --top shows more)\n", past, past > 1 ? "s" : "");
    if (hidden)
        tp_buf_printf(b, "(%zu call site%s with the same figures hidden; --all shows them)\n",
                      hidden, hidden > 1 ? "s" : "");
}

static void text(const char *fa_, const char *fb_, const struct tp_report *A,
                 const struct tp_report *B, const struct tp_diff *d, size_t top, struct tp_buf *b)
{
    char cells[4][40], line[512], fit[104];
    memset(cells, 0, sizeof cells);
    snprintf(line, sizeof line, "tprof diff: before %s, after %s", fa_, fb_);
    tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
    for (int i = 0; i < d->nwarnings; i++)
        wrap(b, "warning: ", d->warnings[i]);
    tp_buf_putc(b, '\n');
    snprintf(cells[0], sizeof cells[0], "before");
    snprintf(cells[1], sizeof cells[1], "after");
    snprintf(cells[2], sizeof cells[2], "change");
    tp_dgrid_row(b, "", cells, 3);
    struct tp_dfig g[3] = {tp_dfig_u(1, A->program.wall_ns, 1, B->program.wall_ns),
                           tp_dfig_u(1, A->memory.peak_bytes, 1, B->memory.peak_bytes),
                           tp_dfig_u(1, A->memory.allocs, 1, B->memory.allocs)};
    static const char *gl[] = {"wall time", "heap peak", "allocations"};
    static const enum tp_dunit gu[] = {TP_DU_NS, TP_DU_BYTES, TP_DU_COUNT};
    for (int i = 0; i < 3; i++) {
        tp_dgrid_side(&g[i], gu[i], 0, cells[0], sizeof cells[0]);
        tp_dgrid_side(&g[i], gu[i], 1, cells[1], sizeof cells[1]);
        tp_dgrid_change(&g[i], gu[i], cells[2], sizeof cells[2]);
        tp_dgrid_row(b, gl[i], cells, 3);
    }
    if (d->step.known) {
        char m0[32], m1[32];
        tp_fmt_ns(A->steps.latency.p50, m0, sizeof m0);
        tp_fmt_ns(B->steps.latency.p50, m1, sizeof m1);
        sig_words(&d->step, "", line, sizeof line);
        tp_buf_printf(b, "step median %s -> %s,%s\n", m0, m1, line + 2);
    }

    ops_text(d, top, b);
    sites_text(d, top, b);
}

/* ---- JSON ---- */

static struct json_object *jstr(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

/* A change and its interval, or null when the reports do not hold what it takes. */
static struct json_object *sig_json(const struct tp_dsig *s)
{
    if (!s->known)
        return NULL;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "change", json_object_new_double(s->change));
    json_object_object_add(o, "ci_lo", json_object_new_double(s->lo));
    json_object_object_add(o, "ci_hi", json_object_new_double(s->hi));
    json_object_object_add(o, "significant", json_object_new_boolean(s->significant));
    return o;
}

static const char *status(int has_a, int has_b)
{
    return !has_a ? "added" : !has_b ? "removed" : "both";
}

static struct json_object *json(const char *fa_, const char *fb_, const struct tp_report *A,
                                const struct tp_report *B, const struct tp_diff *df)
{
    const struct oprow *ops = df->ops;
    const struct siterow *sites = df->sites;
    size_t nops = df->nops, nsites = df->nsites;
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "schema", json_object_new_int(1));
    json_object_object_add(d, "kind", json_object_new_string("tprof-diff"));
    json_object_object_add(d, "before", json_object_new_string(fa_));
    json_object_object_add(d, "after", json_object_new_string(fb_));
    struct tp_dfig g[3] = {tp_dfig_u(1, A->program.wall_ns, 1, B->program.wall_ns),
                           tp_dfig_u(1, A->memory.peak_bytes, 1, B->memory.peak_bytes),
                           tp_dfig_u(1, A->memory.allocs, 1, B->memory.allocs)};
    json_object_object_add(d, "wall_ns", tp_dfig_json(&g[0]));
    json_object_object_add(d, "peak_bytes", tp_dfig_json(&g[1]));
    json_object_object_add(d, "allocs", tp_dfig_json(&g[2]));
    json_object_object_add(d, "step_median", sig_json(&df->step));
    struct json_object *jw = json_object_new_array();
    for (int i = 0; i < df->nwarnings; i++)
        json_object_array_add(jw, json_object_new_string(df->warnings[i]));
    json_object_object_add(d, "warnings", jw);
    struct json_object *jo = json_object_new_array();
    for (size_t i = 0; i < nops; i++) {
        struct tp_dfig f[4];
        op_figs(&ops[i], f);
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "name", jstr(ops[i].name));
        json_object_object_add(o, "kind", jstr(ops[i].kind));
        json_object_object_add(o, "status",
                               json_object_new_string(status(ops[i].has_a, ops[i].has_b)));
        json_object_object_add(o, "calls", tp_dfig_json(&f[0]));
        json_object_object_add(o, "total_ns", tp_dfig_json(&f[1]));
        json_object_object_add(o, "self_ns", tp_dfig_json(&f[2]));
        json_object_object_add(o, "gflops", tp_dfig_json(&f[3]));
        json_object_object_add(o, "per_call", sig_json(&ops[i].per_call));
        json_object_object_add(o, "changed", json_object_new_boolean(op_changed(&ops[i])));
        json_object_array_add(jo, o);
    }
    json_object_object_add(d, "ops", jo);
    struct json_object *js = json_object_new_array();
    for (size_t i = 0; i < nsites; i++) {
        struct tp_dfig f[4];
        site_figs(&sites[i], f);
        const struct tp_keyed_site *k = sites[i].a ? sites[i].a : sites[i].b;
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "key", jstr(k->key));
        json_object_object_add(o, "status", json_object_new_string(site_status(&sites[i])));
        struct json_object *fr = json_object_new_array();
        for (size_t j = 0; j < k->site.nframes; j++) {
            const struct tp_frame *x = &k->site.frames[j];
            struct json_object *jf = json_object_new_object();
            json_object_object_add(jf, "function", jstr(x->function));
            json_object_object_add(jf, "file", jstr(x->file));
            json_object_object_add(jf, "line", json_object_new_int(x->line));
            json_object_object_add(jf, "module", jstr(x->module));
            json_object_object_add(jf, "offset", json_object_new_uint64(x->offset));
            if (x->inlined)
                json_object_object_add(jf, "inlined", json_object_new_boolean(1));
            json_object_array_add(fr, jf);
        }
        json_object_object_add(o, "frames", fr);
        json_object_object_add(o, "peak_live_bytes", tp_dfig_json(&f[0]));
        json_object_object_add(o, "live_at_peak_bytes", tp_dfig_json(&f[1]));
        json_object_object_add(o, "allocs", tp_dfig_json(&f[2]));
        json_object_object_add(o, "bytes", tp_dfig_json(&f[3]));
        json_object_object_add(o, "changed", json_object_new_boolean(site_changed(&sites[i])));
        json_object_array_add(js, o);
    }
    json_object_object_add(d, "sites", js);
    return d;
}

/* ---- the API (diff.h) ---- */

int tp_diff_build(const struct tp_report *A, const struct tp_report *B, struct tp_diff *d)
{
    memset(d, 0, sizeof *d);
    if (op_rows(A, B, &d->ops, &d->nops) == 0 &&
        tp_sites_by_key(A->memory.sites, A->memory.nsites, &d->ka, &d->na) == 0 &&
        tp_sites_by_key(B->memory.sites, B->memory.nsites, &d->kb, &d->nb) == 0 &&
        (d->sites = calloc(d->na + d->nb + 1, sizeof *d->sites))) {
        d->nsites = site_rows(d->ka, d->na, d->kb, d->nb, d->sites);
        for (size_t i = 0; i < d->nsites; i++) {
            struct siterow *r = &d->sites[i];
            if (!r->a || !r->b)
                r->rolled = tp_diff_site_rolled(r->a ? B : A, &(r->a ? r->a : r->b)->site);
        }
        qsort(d->sites, d->nsites, sizeof *d->sites, by_site_impact);
        d->rolled = A->memory.nrollups || B->memory.nrollups;
        tp_diff_sig_median(&A->steps.latency, &B->steps.latency, &d->step);
        warnings(A, B, d);
        if (tp_diff_functions(A, B, &d->fns, &d->nfns) == 0)
            return 0;
    }
    tp_diff_free(d);
    return -1;
}

void tp_diff_text(const struct tp_diff *d, const char *fa, const char *fb,
                  const struct tp_report *A, const struct tp_report *B, size_t top,
                  struct tp_buf *b)
{
    text(fa, fb, A, B, d, top, b);
    if (d->rolled)
        tp_diff_functions_text(d->fns, d->nfns, top, b);
}

struct json_object *tp_diff_json(const struct tp_diff *d, const char *fa, const char *fb,
                                 const struct tp_report *A, const struct tp_report *B)
{
    struct json_object *j = json(fa, fb, A, B, d);
    json_object_object_add(j, "functions", tp_diff_functions_json(d->fns, d->nfns));
    return j;
}

void tp_diff_free(struct tp_diff *d)
{
    free(d->ops);
    free(d->sites);
    free(d->fns);
    tp_keyed_sites_free(d->ka, d->na);
    tp_keyed_sites_free(d->kb, d->nb);
    memset(d, 0, sizeof *d);
}
