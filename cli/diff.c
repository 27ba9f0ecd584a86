/* tprof diff: what changed between two runs, op by op and site by site, biggest change first.
 *
 * Ops are matched by name, call sites by their frames (cli/sitekey.h). An op or site found in
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
#include "cli/diff.h"
#include "cli/sitekey.h"
#include "report/units.h"

#define LABEL 20
#define CELL  20

/* One figure on both sides. Integers are kept exact; GFLOP/s is a double, unknown on a side
 * where the op's FLOPs are (then shown as "-" and left out of the change). */
struct fig {
    int has_a, has_b;
    int is_dbl, unknown;
    uint64_t a, b;
    double da, db;
};

enum unit { U_COUNT, U_NS, U_BYTES, U_GFLOPS };

static struct fig fig_u(int has_a, uint64_t a, int has_b, uint64_t b)
{
    return (struct fig){has_a, has_b, 0, 0, has_a ? a : 0, has_b ? b : 0, 0, 0};
}

static double gflops(uint64_t flops, uint64_t ns)
{
    return ns ? (double)flops / (double)ns : 0; /* FLOP/ns == GFLOP/s */
}

static struct fig fig_gflops(const struct oprow *r)
{
    struct fig f = {r->has_a, r->has_b, 1, 0, 0, 0, 0, 0};
    f.da = r->has_a ? gflops(r->flops[0], r->total[0]) : 0;
    f.db = r->has_b ? gflops(r->flops[1], r->total[1]) : 0;
    f.unknown = (r->has_a && !r->flops[0]) || (r->has_b && !r->flops[1]);
    return f;
}

static double fa(const struct fig *f)
{
    return f->is_dbl ? f->da : (double)f->a;
}
static double fb(const struct fig *f)
{
    return f->is_dbl ? f->db : (double)f->b;
}

/* |b - a|, exactly for integers, and its sign. */
static uint64_t udelta(const struct fig *f, int *neg)
{
    *neg = f->b < f->a;
    return f->b < f->a ? f->a - f->b : f->b - f->a;
}

static void fmt_value(enum unit u, uint64_t v, double d, char *out, size_t n)
{
    switch (u) {
    case U_COUNT: tp_fmt_count(v, out, n); break;
    case U_NS: tp_fmt_ns(v, out, n); break;
    case U_BYTES: tp_fmt_bytes(v, out, n); break;
    case U_GFLOPS: snprintf(out, n, "%.2f", d); break;
    }
}

static void cell_side(const struct fig *f, enum unit u, int after, char *out, size_t n)
{
    if (!(after ? f->has_b : f->has_a) || (f->unknown && (after ? f->db : f->da) == 0)) {
        snprintf(out, n, "-");
        return;
    }
    fmt_value(u, after ? f->b : f->a, after ? f->db : f->da, out, n);
}

/* Percent change, short enough for a cell: "+18.2%", "+150%", "x250" past +9999%. */
static void fmt_pct(const struct fig *f, char *out, size_t n)
{
    double a = fa(f), b = fb(f);
    if (!f->has_a) {
        snprintf(out, n, "new");
        return;
    }
    if (!f->has_b) {
        snprintf(out, n, "gone");
        return;
    }
    if (a == 0) {
        snprintf(out, n, b == 0 ? "0%%" : "from 0");
        return;
    }
    double p = 100 * (b - a) / a;
    if (fabs(p) < 99.95)
        snprintf(out, n, "%+.1f%%", p);
    else if (p < 9999.5)
        snprintf(out, n, "%+.0f%%", p);
    else if (b / a < 99999.5)
        snprintf(out, n, "x%.0f", b / a);
    else
        snprintf(out, n, "x>99999");
}

static void cell_change(const struct fig *f, enum unit u, char *out, size_t n)
{
    char v[24], p[12];
    int neg;
    if (f->unknown) {
        snprintf(out, n, "-");
        return;
    }
    if (f->has_a && f->has_b && fa(f) == fb(f)) {
        snprintf(out, n, "same");
        return;
    }
    fmt_pct(f, p, sizeof p);
    if (f->is_dbl) {
        snprintf(out, n, "%+.2f (%s)", fb(f) - fa(f), p);
        return;
    }
    uint64_t d = udelta(f, &neg);
    fmt_value(u, d, 0, v, sizeof v);
    snprintf(out, n, "%s%s (%s)", d == 0 ? "" : neg ? "-" : "+", v, p);
}

/* A section title ruled to the full width, as the text report does. */
static void heading(struct tp_buf *b, const char *title)
{
    tp_buf_printf(b, "\n%s ", title);
    for (size_t i = strlen(title) + 1; i < LABEL + 4 * CELL; i++)
        tp_buf_putc(b, '-');
    tp_buf_putc(b, '\n');
}

/* One row of the grid: a label and up to four cells. */
static void grid_row(struct tp_buf *b, const char *label, char cells[][40], int ncells)
{
    char l[LABEL + 4];
    tp_fmt_fit(label, LABEL - 1, l, sizeof l);
    tp_buf_printf(b, "%-*s", LABEL, l);
    for (int i = 0; i < ncells; i++)
        tp_buf_printf(b, "%*s", CELL, cells[i]);
    tp_buf_putc(b, '\n');
}

/* The before, after and change rows of one item: figs[i] in column i with unit units[i]. */
static void three_rows(struct tp_buf *b, const struct fig *figs, const enum unit *units, int n)
{
    char cells[4][40];
    static const char *labels[] = {"  before", "  after", "  change"};
    for (int row = 0; row < 3; row++) {
        for (int i = 0; i < n; i++) {
            if (row < 2)
                cell_side(&figs[i], units[i], row, cells[i], sizeof cells[i]);
            else
                cell_change(&figs[i], units[i], cells[i], sizeof cells[i]);
        }
        grid_row(b, labels[row], cells, n);
    }
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
    qsort(rows, m, sizeof *rows, by_op_impact);
    free(a);
    free(b);
    *out = rows;
    *n = m;
    return 0;
}

static void op_figs(const struct oprow *r, struct fig *f)
{
    f[0] = fig_u(r->has_a, r->calls[0], r->has_b, r->calls[1]);
    f[1] = fig_u(r->has_a, r->total[0], r->has_b, r->total[1]);
    f[2] = fig_u(r->has_a, r->self[0], r->has_b, r->self[1]);
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
    qsort(rows, m, sizeof *rows, by_site_impact);
    return m;
}

static void site_figs(const struct siterow *r, struct fig *f)
{
    const struct tp_site *a = r->a ? &r->a->site : NULL, *b = r->b ? &r->b->site : NULL;
    f[0] = fig_u(!!a, a ? a->peak_live_bytes : 0, !!b, b ? b->peak_live_bytes : 0);
    f[1] = fig_u(!!a, a ? a->live_at_peak_bytes : 0, !!b, b ? b->live_at_peak_bytes : 0);
    f[2] = fig_u(!!a, a ? a->allocs : 0, !!b, b ? b->allocs : 0);
    f[3] = fig_u(!!a, a ? a->bytes : 0, !!b, b ? b->bytes : 0);
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

/* ---- text ---- */

static void text(const char *fa_, const char *fb_, const struct tp_report *A,
                 const struct tp_report *B, const struct oprow *ops, size_t nops,
                 const struct siterow *sites, size_t nsites, size_t top, struct tp_buf *b)
{
    char cells[4][40], line[512], fit[104];
    memset(cells, 0, sizeof cells);
    snprintf(line, sizeof line, "tprof diff: before %s, after %s", fa_, fb_);
    tp_buf_printf(b, "%s\n\n", tp_fmt_fit(line, 100, fit, sizeof fit));
    snprintf(cells[0], sizeof cells[0], "before");
    snprintf(cells[1], sizeof cells[1], "after");
    snprintf(cells[2], sizeof cells[2], "change");
    grid_row(b, "", cells, 3);
    struct fig g[3] = {fig_u(1, A->program.wall_ns, 1, B->program.wall_ns),
                       fig_u(1, A->memory.peak_bytes, 1, B->memory.peak_bytes),
                       fig_u(1, A->memory.allocs, 1, B->memory.allocs)};
    static const char *gl[] = {"wall time", "heap peak", "allocations"};
    static const enum unit gu[] = {U_NS, U_BYTES, U_COUNT};
    for (int i = 0; i < 3; i++) {
        cell_side(&g[i], gu[i], 0, cells[0], sizeof cells[0]);
        cell_side(&g[i], gu[i], 1, cells[1], sizeof cells[1]);
        cell_change(&g[i], gu[i], cells[2], sizeof cells[2]);
        grid_row(b, gl[i], cells, 3);
    }

    static const enum unit ou[] = {U_COUNT, U_NS, U_NS, U_GFLOPS};
    if (nops) {
        heading(b, "OPS (by change in total time)");
        snprintf(cells[0], sizeof cells[0], "calls");
        snprintf(cells[1], sizeof cells[1], "total time");
        snprintf(cells[2], sizeof cells[2], "self time");
        snprintf(cells[3], sizeof cells[3], "GFLOP/s");
        grid_row(b, "op", cells, 4);
    }
    for (size_t i = 0; i < nops && i < top; i++) {
        struct fig f[4];
        op_figs(&ops[i], f);
        snprintf(line, sizeof line, "%s%s%s%s", ops[i].name, ops[i].kind ? " [" : "",
                 ops[i].kind ? ops[i].kind : "", ops[i].kind ? "]" : "");
        if (!ops[i].has_a || !ops[i].has_b)
            snprintf(line + strlen(line), sizeof line - strlen(line), "  (%s)",
                     ops[i].has_a ? "removed" : "added");
        tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
        three_rows(b, f, ou, 4);
    }
    if (nops > top)
        tp_buf_printf(b, "(%zu more op%s; --top shows more)\n", nops - top,
                      nops - top > 1 ? "s" : "");

    static const enum unit su[] = {U_BYTES, U_BYTES, U_COUNT, U_BYTES};
    if (nsites) {
        heading(b, "CALL SITES (by change in their own peak)");
        snprintf(cells[0], sizeof cells[0], "own peak");
        snprintf(cells[1], sizeof cells[1], "live at heap peak");
        snprintf(cells[2], sizeof cells[2], "allocations");
        snprintf(cells[3], sizeof cells[3], "bytes allocated");
        grid_row(b, "site", cells, 4);
    }
    for (size_t i = 0; i < nsites && i < top; i++) {
        struct fig f[4];
        site_figs(&sites[i], f);
        const struct tp_keyed_site *k = sites[i].a ? sites[i].a : sites[i].b;
        site_title(&k->site, line, sizeof line);
        if (!sites[i].a || !sites[i].b)
            snprintf(line + strlen(line), sizeof line - strlen(line), "  (%s)",
                     sites[i].a ? "removed" : "added");
        tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
        three_rows(b, f, su, 4);
    }
    if (nsites > top)
        tp_buf_printf(b, "(%zu more call site%s; --top shows more)\n", nsites - top,
                      nsites - top > 1 ? "s" : "");
}

/* ---- JSON ---- */

static struct json_object *jfig(const struct fig *f)
{
    struct json_object *o = json_object_new_object();
    if (f->is_dbl) {
        int ka = f->has_a && !(f->unknown && f->da == 0),
            kb = f->has_b && !(f->unknown && f->db == 0);
        json_object_object_add(o, "before", ka ? json_object_new_double(f->da) : NULL);
        json_object_object_add(o, "after", kb ? json_object_new_double(f->db) : NULL);
        json_object_object_add(o, "delta",
                               f->unknown ? NULL : json_object_new_double(f->db - f->da));
    } else {
        int neg;
        uint64_t d = udelta(f, &neg);
        json_object_object_add(o, "before", f->has_a ? json_object_new_uint64(f->a) : NULL);
        json_object_object_add(o, "after", f->has_b ? json_object_new_uint64(f->b) : NULL);
        /* A delta beyond the int64 range (never in a real report) is written as a double. */
        if (d <= (uint64_t)INT64_MAX)
            json_object_object_add(o, "delta",
                                   json_object_new_int64(neg ? -(int64_t)d : (int64_t)d));
        else
            json_object_object_add(o, "delta",
                                   json_object_new_double(neg ? -(double)d : (double)d));
    }
    double a = fa(f), b = fb(f);
    json_object_object_add(o, "pct",
                           f->has_a && f->has_b && !f->unknown && a != 0
                               ? json_object_new_double(100 * (b - a) / a)
                               : NULL);
    return o;
}

static struct json_object *jstr(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static const char *status(int has_a, int has_b)
{
    return !has_a ? "added" : !has_b ? "removed" : "both";
}

static struct json_object *json(const char *fa_, const char *fb_, const struct tp_report *A,
                                const struct tp_report *B, const struct oprow *ops, size_t nops,
                                const struct siterow *sites, size_t nsites)
{
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "schema", json_object_new_int(1));
    json_object_object_add(d, "kind", json_object_new_string("tprof-diff"));
    json_object_object_add(d, "before", json_object_new_string(fa_));
    json_object_object_add(d, "after", json_object_new_string(fb_));
    struct fig g[3] = {fig_u(1, A->program.wall_ns, 1, B->program.wall_ns),
                       fig_u(1, A->memory.peak_bytes, 1, B->memory.peak_bytes),
                       fig_u(1, A->memory.allocs, 1, B->memory.allocs)};
    json_object_object_add(d, "wall_ns", jfig(&g[0]));
    json_object_object_add(d, "peak_bytes", jfig(&g[1]));
    json_object_object_add(d, "allocs", jfig(&g[2]));
    struct json_object *jo = json_object_new_array();
    for (size_t i = 0; i < nops; i++) {
        struct fig f[4];
        op_figs(&ops[i], f);
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "name", jstr(ops[i].name));
        json_object_object_add(o, "kind", jstr(ops[i].kind));
        json_object_object_add(o, "status",
                               json_object_new_string(status(ops[i].has_a, ops[i].has_b)));
        json_object_object_add(o, "calls", jfig(&f[0]));
        json_object_object_add(o, "total_ns", jfig(&f[1]));
        json_object_object_add(o, "self_ns", jfig(&f[2]));
        json_object_object_add(o, "gflops", jfig(&f[3]));
        json_object_array_add(jo, o);
    }
    json_object_object_add(d, "ops", jo);
    struct json_object *js = json_object_new_array();
    for (size_t i = 0; i < nsites; i++) {
        struct fig f[4];
        site_figs(&sites[i], f);
        const struct tp_keyed_site *k = sites[i].a ? sites[i].a : sites[i].b;
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "key", jstr(k->key));
        json_object_object_add(o, "status",
                               json_object_new_string(status(!!sites[i].a, !!sites[i].b)));
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
        json_object_object_add(o, "peak_live_bytes", jfig(&f[0]));
        json_object_object_add(o, "live_at_peak_bytes", jfig(&f[1]));
        json_object_object_add(o, "allocs", jfig(&f[2]));
        json_object_object_add(o, "bytes", jfig(&f[3]));
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
        return 0;
    }
    tp_diff_free(d);
    return -1;
}

void tp_diff_text(const struct tp_diff *d, const char *fa, const char *fb,
                  const struct tp_report *A, const struct tp_report *B, size_t top,
                  struct tp_buf *b)
{
    text(fa, fb, A, B, d->ops, d->nops, d->sites, d->nsites, top, b);
}

struct json_object *tp_diff_json(const struct tp_diff *d, const char *fa, const char *fb,
                                 const struct tp_report *A, const struct tp_report *B)
{
    return json(fa, fb, A, B, d->ops, d->nops, d->sites, d->nsites);
}

void tp_diff_free(struct tp_diff *d)
{
    free(d->ops);
    free(d->sites);
    tp_keyed_sites_free(d->ka, d->na);
    tp_keyed_sites_free(d->kb, d->nb);
    memset(d, 0, sizeof *d);
}
