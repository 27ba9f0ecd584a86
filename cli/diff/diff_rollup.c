/* `tprof diff` by function: each report's heap summed per function and module, from the call
 * sites it wrote one by one and the rows it rolled up (memory.site_rollups).
 *
 * A report written with TPROF_JSON_SITES keeps its top sites and rolls the rest up per function
 * and module of their first frame. A site in the top of one run and in a rolled-up row of the
 * other would otherwise show as "added" or "removed" although it did not change; summed per
 * function, both sides are exact whatever each run chose to write. The function of a written
 * site is that of its first frame that was not inlined, the one the symbol tables name, as for a
 * rolled-up site; modules are compared by base name, as site keys are. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/diff/diff.h"
#include "cli/diff/diff_grid.h"
#include "common/out/out.h"
#include "report/siterollup.h"
#include "report/units.h"

/* NULL (unknown) sorts first and equals only NULL. */
static int cmp_null(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_key(const struct tp_dfn_row *a, const struct tp_dfn_row *b)
{
    int c = cmp_null(a->function, b->function);
    return c ? c : cmp_null(a->module, b->module);
}

static int by_key(const void *x, const void *y)
{
    return cmp_key(x, y);
}

/* The function and module a written site is summed under. */
static void site_fn(const struct tp_site *s, const char **fn, const char **mod)
{
    size_t i = 0;
    while (i + 1 < s->nframes && s->frames[i].inlined)
        i++;
    *fn = s->nframes ? s->frames[i].function : NULL;
    *mod = s->nframes ? tp_base_name(s->frames[i].module, NULL) : NULL;
}

/* One side's rows, a row per function and module, sorted by key; side 0 or 1 holds the figures.
 * NULL when out of memory (*n is then 0). */
static struct tp_dfn_row *side_rows(const struct tp_memory *m, int side, size_t *n)
{
    struct tp_dfn_row *v = calloc(m->nsites + m->nrollups + 1, sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        struct tp_dfn_row *r = &v[i];
        site_fn(s, &r->function, &r->module);
        r->sites[side] = 1;
        r->allocs[side] = s->allocs;
        r->bytes[side] = s->bytes;
        r->live_at_peak[side] = s->live_at_peak_bytes;
        r->live_at_exit[side] = s->live_at_exit_bytes;
    }
    for (size_t i = 0; i < m->nrollups; i++) {
        const struct tp_site_rollup *u = &m->rollups[i];
        struct tp_dfn_row *r = &v[m->nsites + i];
        r->function = u->function;
        r->module = tp_base_name(u->module, NULL);
        r->rolled[side] = 1;
        r->sites[side] = u->sites;
        r->allocs[side] = u->allocs;
        r->bytes[side] = u->bytes;
        r->live_at_peak[side] = u->live_at_peak_bytes;
        r->live_at_exit[side] = u->live_at_exit_bytes;
    }
    size_t k = m->nsites + m->nrollups, out = 0;
    qsort(v, k, sizeof *v, by_key);
    for (size_t i = 0; i < k; i++) { /* rows of one key add up */
        struct tp_dfn_row *d = &v[out], *s = &v[i];
        if (out && !cmp_key(&v[out - 1], s)) {
            d = &v[out - 1];
            d->rolled[side] |= s->rolled[side];
            d->sites[side] += s->sites[side];
            d->allocs[side] += s->allocs[side];
            d->bytes[side] += s->bytes[side];
            d->live_at_peak[side] += s->live_at_peak[side];
            d->live_at_exit[side] += s->live_at_exit[side];
            continue;
        }
        *d = *s;
        out++;
    }
    *n = out;
    return v;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static int by_impact(const void *x, const void *y)
{
    const struct tp_dfn_row *a = x, *b = y;
    uint64_t ia = absdiff(a->live_at_peak[0], a->live_at_peak[1]),
             ib = absdiff(b->live_at_peak[0], b->live_at_peak[1]);
    if (ia != ib)
        return ia < ib ? 1 : -1;
    ia = absdiff(a->bytes[0], a->bytes[1]);
    ib = absdiff(b->bytes[0], b->bytes[1]);
    if (ia != ib)
        return ia < ib ? 1 : -1;
    return cmp_key(a, b);
}

int tp_diff_functions(const struct tp_report *A, const struct tp_report *B, struct tp_dfn_row **out,
                      size_t *n)
{
    size_t na, nb, i = 0, j = 0, m = 0;
    struct tp_dfn_row *a = side_rows(&A->memory, 0, &na), *b = side_rows(&B->memory, 1, &nb);
    struct tp_dfn_row *rows = calloc(na + nb + 1, sizeof *rows);
    if (!a || !b || !rows) {
        free(a);
        free(b);
        free(rows);
        return -1;
    }
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : cmp_key(&a[i], &b[j]);
        struct tp_dfn_row *r = &rows[m++];
        *r = c <= 0 ? a[i] : b[j];
        r->has_a = c <= 0;
        r->has_b = c >= 0;
        if (c == 0) {
            r->rolled[1] = b[j].rolled[1];
            r->sites[1] = b[j].sites[1];
            r->allocs[1] = b[j].allocs[1];
            r->bytes[1] = b[j].bytes[1];
            r->live_at_peak[1] = b[j].live_at_peak[1];
            r->live_at_exit[1] = b[j].live_at_exit[1];
        }
        i += c <= 0;
        j += c >= 0;
    }
    qsort(rows, m, sizeof *rows, by_impact);
    free(a);
    free(b);
    *out = rows;
    *n = m;
    return 0;
}

int tp_diff_site_rolled(const struct tp_report *r, const struct tp_site *s)
{
    struct tp_dfn_row k = {0};
    site_fn(s, &k.function, &k.module);
    for (size_t i = 0; i < r->memory.nrollups; i++) {
        struct tp_dfn_row u = {.function = r->memory.rollups[i].function,
                               .module = tp_base_name(r->memory.rollups[i].module, NULL)};
        if (!cmp_key(&k, &u))
            return 1;
    }
    return 0;
}

static void figs(const struct tp_dfn_row *r, struct tp_dfig *f)
{
    f[0] = tp_dfig_u(r->has_a, r->live_at_peak[0], r->has_b, r->live_at_peak[1]);
    f[1] = tp_dfig_u(r->has_a, r->live_at_exit[0], r->has_b, r->live_at_exit[1]);
    f[2] = tp_dfig_u(r->has_a, r->allocs[0], r->has_b, r->allocs[1]);
    f[3] = tp_dfig_u(r->has_a, r->bytes[0], r->has_b, r->bytes[1]);
}

static const char *status(const struct tp_dfn_row *r)
{
    return !r->has_a ? "added" : !r->has_b ? "removed" : "both";
}

void tp_diff_functions_text(const struct tp_dfn_row *rows, size_t n, size_t top, struct tp_buf *b)
{
    static const enum tp_dunit u[] = {TP_DU_BYTES, TP_DU_BYTES, TP_DU_COUNT, TP_DU_BYTES};
    char cells[4][40], line[600], fit[104];
    if (!n)
        return;
    tp_dgrid_heading(b, "HEAP BY FUNCTION (written and rolled-up sites, by change at the peak)");
    snprintf(cells[0], sizeof cells[0], "live at heap peak");
    snprintf(cells[1], sizeof cells[1], "live at exit");
    snprintf(cells[2], sizeof cells[2], "allocations");
    snprintf(cells[3], sizeof cells[3], "bytes allocated");
    tp_dgrid_row(b, "function", cells, 4);
    for (size_t i = 0; i < n && i < top; i++) {
        const struct tp_dfn_row *r = &rows[i];
        struct tp_dfig f[4];
        figs(r, f);
        snprintf(line, sizeof line, "%.250s (%.250s)  sites %llu -> %llu%s",
                 r->function ? r->function : "?", r->module ? r->module : "?",
                 (unsigned long long)r->sites[0], (unsigned long long)r->sites[1],
                 !r->has_a   ? "  (added)"
                 : !r->has_b ? "  (removed)"
                             : "");
        tp_buf_printf(b, "%s\n", tp_fmt_fit(line, 100, fit, sizeof fit));
        tp_dgrid_rows(b, f, u, 4);
    }
    if (n > top)
        tp_buf_printf(b, "(%zu more function%s; --top shows more)\n", n - top,
                      n - top > 1 ? "s" : "");
}

struct json_object *tp_diff_functions_json(const struct tp_dfn_row *rows, size_t n)
{
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        const struct tp_dfn_row *r = &rows[i];
        struct tp_dfig f[4];
        figs(r, f);
        struct tp_dfig s = tp_dfig_u(r->has_a, r->sites[0], r->has_b, r->sites[1]);
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "function",
                               r->function ? json_object_new_string(r->function) : NULL);
        json_object_object_add(o, "module", r->module ? json_object_new_string(r->module) : NULL);
        json_object_object_add(o, "status", json_object_new_string(status(r)));
        json_object_object_add(o, "rolled_up_before", json_object_new_boolean(r->rolled[0]));
        json_object_object_add(o, "rolled_up_after", json_object_new_boolean(r->rolled[1]));
        json_object_object_add(o, "sites", tp_dfig_json(&s));
        json_object_object_add(o, "live_at_peak_bytes", tp_dfig_json(&f[0]));
        json_object_object_add(o, "live_at_exit_bytes", tp_dfig_json(&f[1]));
        json_object_object_add(o, "allocs", tp_dfig_json(&f[2]));
        json_object_object_add(o, "bytes", tp_dfig_json(&f[3]));
        json_object_array_add(a, o);
    }
    return a;
}
