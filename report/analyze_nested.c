/* The verdict's op: which one it reasons on when the time and the FLOPs are on different ops, and
 * how many threads ran it at once (report/analyze_nested.h). */
#include "report/analyze_nested.h"

#include <math.h>
#include <string.h>

const struct tp_op *tp_flops_parent(const struct tp_report *r, const struct tp_op *d)
{
    if (!d || d->flops || d->bytes || !d->parent)
        return NULL;
    for (size_t i = 0; i < r->nops; i++) {
        const struct tp_op *p = &r->ops[i];
        if (p == d || !p->name || strcmp(p->name, d->parent) != 0)
            continue;
        /* Half: below it the op's own code or its other callees take most of its time, and its
         * FLOP rate says little of d. */
        return p->flops && d->total_ns >= p->total_ns / 2 ? p : NULL;
    }
    return NULL;
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
