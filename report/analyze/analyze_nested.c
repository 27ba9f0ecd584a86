/* The verdict's op: which one it reasons on when the time and the FLOPs are on different ops, and
 * how many threads ran it at once (report/analyze/analyze_nested.h). */
#include "report/analyze/analyze_nested.h"

#include <math.h>
#include <string.h>

static const struct tp_op *op_named(const struct tp_report *r, const char *name)
{
    for (size_t i = 0; name && i < r->nops; i++)
        if (r->ops[i].name && !strcmp(r->ops[i].name, name))
            return &r->ops[i];
    return NULL;
}

const struct tp_op *tp_flops_parent(const struct tp_report *r, const struct tp_op *d)
{
    if (!d || d->flops || d->bytes)
        return NULL;
    /* Up through callers without FLOPs of their own (darknet's gemm -> gemm_cpu -> gemm_nn),
     * a few levels: a longer chain is no longer one op's work. */
    const struct tp_op *p = op_named(r, d->parent);
    for (int up = 0; p && p != d && !p->flops && !p->bytes && up < 4; up++)
        p = op_named(r, p->parent);
    /* Half: below it the op's own code or its other callees take most of its time, and its
     * FLOP rate says little of d. */
    return p && p != d && p->flops && d->total_ns >= p->total_ns / 2 ? p : NULL;
}

double tp_total_share(const struct tp_op *o, uint64_t denom)
{
    uint64_t t = o->wall_ns ? o->wall_ns : o->total_ns;
    double s = denom ? (double)t / (double)denom : 0;
    return s > 1 ? 1 : s;
}

/* ", on 2 threads at once": where the op's thread time is more than its wall-clock time, by how
 * many threads on average (one decimal unless whole). Nothing for a report without wall-clock
 * times. */
void tp_threads_at_once(const struct tp_op *d, struct tp_buf *t)
{
    if (!d->self_wall_ns)
        return;
    double n = (double)d->self_ns / (double)d->self_wall_ns;
    if (!(n >= 1.05))
        return;
    double whole = floor(n + 0.5);
    if (fabs(n - whole) < 0.05)
        tp_buf_printf(t, ", on %.0f threads at once", whole);
    else
        tp_buf_printf(t, ", on %.1f threads at once on average", n);
}
