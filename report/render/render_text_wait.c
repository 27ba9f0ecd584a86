/* The text report's WORK AND WAIT table (report/render/render_text.h): the ops whose threads waited for
 * each other, with the share of their time that was waiting, its parts and the calls waited in.
 * Figures that come from CPU samples carry "~". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze/analyze.h"
#include "common/names/names.h"
#include "report/render/render_text.h"
#include "report/units.h"

/* Ops listed: those with at least this much waiting. */
#define WAIT_SHOWN_NS 1000000ull

static int by_wait(const void *a, const void *b)
{
    const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
    if (x->wait_ns != y->wait_ns)
        return x->wait_ns < y->wait_ns ? 1 : -1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* A time cell: "-" for 0, "~" before an estimate. */
static const char *ns_cell(uint64_t ns, int est, char *out, size_t n)
{
    char t[32];
    if (!ns)
        return strcpy(out, "-");
    tp_fmt_ns(ns, t, sizeof t);
    snprintf(out, n, "%s%s", est ? "~" : "", t);
    return out;
}

static void row(struct tp_text_ctx *c, const struct tp_op *o, size_t nw)
{
    char h[5][160], pct[32], share[40], blocked[40], spin[40], work[40];
    int sampled = o->work_method && !strcmp(o->work_method, "samples");
    tp_fmt_pct(o->wait_share, 7, pct, sizeof pct);
    snprintf(share, sizeof share, "%s%s", tp_op_wait_estimated(o) ? "~" : "", pct);
    tp_buf_printf(c->b, "%s %s %s %s %s %s\n",
                  tp_text_name(c, tp_name_short(o->name), nw, h[0], 160),
                  tp_text_right(h[1], 160, share, 7),
                  tp_text_right(h[2], 160, ns_cell(o->wait_blocked_ns, 0, blocked, 40), 9),
                  tp_text_right(h[3], 160, ns_cell(o->wait_spin_ns, 1, spin, 40), 9),
                  tp_text_right(h[4], 160, ns_cell(o->work_ns, sampled, work, 40), 9),
                  o->wait_kinds ? o->wait_kinds : "-");
}

void tp_text_waits(struct tp_text_ctx *c)
{
    const struct tp_report *r = c->r;
    size_t n = 0;
    for (size_t i = 0; i < r->nops; i++)
        n += r->ops[i].wait_ns >= WAIT_SHOWN_NS;
    if (!n)
        return;
    const struct tp_op **v = malloc(n * sizeof *v);
    if (!v)
        return;
    n = 0;
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].wait_ns >= WAIT_SHOWN_NS)
            v[n++] = &r->ops[i];
    qsort(v, n, sizeof *v, by_wait);
    char h[5][160];
    size_t nw = tp_text_col(c, 24);
    tp_text_heading(c,
                    "WORK AND WAIT (ops whose threads waited for each other; ~ from CPU samples)");
    tp_buf_printf(c->b, "%s %s %s %s %s %s\n", tp_fmt_cell("op", nw, 0, h[0], 160),
                  tp_text_right(h[1], 160, "wait%", 7), tp_text_right(h[2], 160, "blocked", 9),
                  tp_text_right(h[3], 160, "spin", 9), tp_text_right(h[4], 160, "work", 9),
                  "waited in");
    size_t k = n < (size_t)c->top ? n : (size_t)c->top;
    for (size_t i = 0; i < k; i++)
        row(c, v[i], nw);
    if (n > k)
        tp_text_say(c, "(%zu more in the JSON report)", n - k);
    free(v);
}
