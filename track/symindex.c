/* Sorted function symbols and the lookup of an address among them (see symindex.h). */
#include "track/symindex.h"

#include <elf.h>
#include <stdlib.h>

int tp_sym_rank(int b)
{
    return b == STB_GLOBAL ? 0 : b == STB_WEAK ? 1 : b == STB_LOCAL ? 2 : 3;
}

/* By address; at one address the alias that names it first: a size (it holds more than one
 * byte), then the binding, then the symbol table's own order, so that the choice never depends on
 * how qsort orders equal keys. */
static int by_start(const void *a, const void *b)
{
    const struct tp_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if ((x->size != 0) != (y->size != 0))
        return x->size ? -1 : 1;
    if (x->rank != y->rank)
        return (int)x->rank - (int)y->rank;
    return x->order < y->order ? -1 : x->order > y->order;
}

void tp_symindex_finish(struct tp_sym *v, size_t *n)
{
    if (!v || *n == 0)
        return;
    qsort(v, *n, sizeof *v, by_start);
    size_t u = 0;
    for (size_t i = 0; i < *n; i++)
        if (u == 0 || v[u - 1].start != v[i].start)
            v[u++] = v[i];
    *n = u;
}

const struct tp_sym *tp_symindex_find(const struct tp_sym *v, size_t n, uintptr_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* lo: the first symbol past a. The nearest one at or below a holds it, or an earlier one with
     * a size that reaches past it (a function around a label of its own). */
    for (size_t i = lo, tries = 0; i > 0 && tries < TP_SYMINDEX_BACK; i--, tries++) {
        const struct tp_sym *s = &v[i - 1];
        if (a - s->start < (s->size ? s->size : 1))
            return s;
    }
    return NULL;
}
