/* `tprof merge` of the inputs' rolled-up call sites (memory.site_rollups): rows of the same
 * function and module add up, so the merged report's totals stay exact. */
#include "cli/merge/merge.h"
#include "common/buf.h"
#include "report/siterollup.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int by_key(const void *x, const void *y)
{
    const struct tp_site_rollup *a = x, *b = y;
    int c = cmp_str(a->function, b->function);
    return c ? c : cmp_str(a->module, b->module);
}

static int by_bytes(const void *x, const void *y)
{
    const struct tp_site_rollup *a = x, *b = y;
    if (a->live_at_peak_bytes != b->live_at_peak_bytes)
        return a->live_at_peak_bytes < b->live_at_peak_bytes ? 1 : -1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? 1 : -1;
    return by_key(x, y);
}

int tp_merge_rollups(const struct tp_report *in, size_t nin, struct tp_memory *m)
{
    size_t total = 0, n = 0;
    for (size_t i = 0; i < nin; i++)
        total += in[i].memory.nrollups;
    if (!total)
        return 0;
    struct tp_site_rollup *all = calloc(total, sizeof *all); /* strings borrowed */
    m->rollups = calloc(total, sizeof *m->rollups);
    if (!all || !m->rollups) {
        free(all);
        return -1;
    }
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < in[i].memory.nrollups; j++)
            all[n++] = in[i].memory.rollups[j];
    qsort(all, n, sizeof *all, by_key);
    for (size_t i = 0; i < n; i++) {
        struct tp_site_rollup *d = &m->rollups[m->nrollups];
        if (m->nrollups && !by_key(&m->rollups[m->nrollups - 1], &all[i])) {
            d = &m->rollups[m->nrollups - 1];
        } else {
            m->nrollups++;
            d->function = tp_dup_or_null(all[i].function);
            d->module = tp_dup_or_null(all[i].module);
        }
        d->sites += all[i].sites;
        d->allocs += all[i].allocs;
        d->frees += all[i].frees;
        d->bytes += all[i].bytes;
        d->live_at_peak_bytes += all[i].live_at_peak_bytes;
        d->live_at_exit_bytes += all[i].live_at_exit_bytes;
        d->live_at_exit_allocs += all[i].live_at_exit_allocs;
    }
    free(all);
    qsort(m->rollups, m->nrollups, sizeof *m->rollups, by_bytes);
    return 0;
}
