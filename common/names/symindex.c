/* Sorted function symbols and the lookup of an address among them (see common/names/names.h). */
#include "common/names/names.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

int tp_sym_rank(int b)
{
    return b == STB_GLOBAL ? 0 : b == STB_WEAK ? 1 : b == STB_LOCAL ? 2 : 3;
}

/* By address; at one address the alias that names it first: a size (it holds more than one
 * byte), then the binding, then the symbol table's own order, so that the choice never depends on
 * how qsort orders equal keys. */
static inline int by_start(const void *a, const void *b)
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

/* Bottom-up merge sort with the comparison inline: qsort's call through a pointer for each
 * comparison was most of what a report spent on a module's symbols (cc1's 29,000, libc's). t:
 * room for n more. */
static void merge_sort(struct tp_sym *v, size_t n, struct tp_sym *t)
{
    struct tp_sym *src = v, *dst = t;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = n - lo > w ? lo + w : n, hi = n - lo > 2 * w ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = by_start(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        struct tp_sym *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

void tp_symindex_finish(struct tp_sym *v, size_t *n, struct tp_sym *scratch)
{
    if (!v || *n == 0)
        return;
    if (scratch)
        merge_sort(v, *n, scratch);
    else
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
