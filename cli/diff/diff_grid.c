/* How `tprof diff` shows a figure (cli/diff/diff_grid.h): the text grid's cells, rows and section
 * headings, and a figure's JSON object. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/diff/diff_grid.h"
#include "report/units.h"

#define LABEL TP_DGRID_LABEL
#define CELL  TP_DGRID_CELL

static double fa(const struct tp_dfig *f)
{
    return f->is_dbl ? f->da : (double)f->a;
}
static double fb(const struct tp_dfig *f)
{
    return f->is_dbl ? f->db : (double)f->b;
}

/* |b - a|, exactly for integers, and its sign. */
static uint64_t udelta(const struct tp_dfig *f, int *neg)
{
    *neg = f->b < f->a;
    return f->b < f->a ? f->a - f->b : f->b - f->a;
}

static void fmt_value(enum tp_dunit u, uint64_t v, double d, char *out, size_t n)
{
    switch (u) {
    case TP_DU_COUNT: tp_fmt_count(v, out, n); break;
    case TP_DU_NS: tp_fmt_ns(v, out, n); break;
    case TP_DU_BYTES: tp_fmt_bytes(v, out, n); break;
    case TP_DU_GFLOPS: snprintf(out, n, "%.2f", d); break;
    }
}

void tp_dgrid_side(const struct tp_dfig *f, enum tp_dunit u, int after, char *out, size_t n)
{
    if (!(after ? f->has_b : f->has_a) ||
        (f->is_dbl && f->unknown && (after ? f->db : f->da) == 0)) {
        snprintf(out, n, "-");
        return;
    }
    fmt_value(u, after ? f->b : f->a, after ? f->db : f->da, out, n);
}

/* Percent change, short enough for a cell: "+18.2%", "+150%", "x250" past +9999%. */
static void fmt_pct(const struct tp_dfig *f, char *out, size_t n)
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

void tp_dgrid_change(const struct tp_dfig *f, enum tp_dunit u, char *out, size_t n)
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
void tp_dgrid_heading(struct tp_buf *b, const char *title)
{
    tp_buf_printf(b, "\n%s ", title);
    for (size_t i = strlen(title) + 1; i < LABEL + 4 * CELL; i++)
        tp_buf_putc(b, '-');
    tp_buf_putc(b, '\n');
}

/* One row of the grid: a label and up to four cells. */
void tp_dgrid_row(struct tp_buf *b, const char *label, char cells[][40], int ncells)
{
    char l[LABEL + 4];
    tp_fmt_fit(label, LABEL - 1, l, sizeof l);
    tp_buf_printf(b, "%-*s", LABEL, l);
    for (int i = 0; i < ncells; i++)
        tp_buf_printf(b, "%*s", CELL, cells[i]);
    tp_buf_putc(b, '\n');
}

/* The before, after and change rows of one item: figs[i] in column i with unit units[i]. */
void tp_dgrid_rows(struct tp_buf *b, const struct tp_dfig *figs, const enum tp_dunit *units, int n)
{
    char cells[4][40];
    static const char *labels[] = {"  before", "  after", "  change"};
    for (int row = 0; row < 3; row++) {
        for (int i = 0; i < n; i++) {
            if (row < 2)
                tp_dgrid_side(&figs[i], units[i], row, cells[i], sizeof cells[i]);
            else
                tp_dgrid_change(&figs[i], units[i], cells[i], sizeof cells[i]);
        }
        tp_dgrid_row(b, labels[row], cells, n);
    }
}

struct json_object *tp_dfig_json(const struct tp_dfig *f)
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
        if (f->unknown)
            json_object_object_add(o, "delta", NULL);
        else if (d <= (uint64_t)INT64_MAX)
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
