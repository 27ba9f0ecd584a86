/* `tprof merge` of the processes' module lists: one entry per file and build-id, so that a
 * symboliser of the merged report finds each file once, whichever processes loaded it. */
#include <stdlib.h>
#include <string.h>

#include "cli/merge/merge.h"

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static struct tp_modinfo *find(struct tp_modinfo *v, size_t n, const struct tp_modinfo *m)
{
    for (size_t i = 0; i < n; i++)
        if (same_str(v[i].path, m->path) && same_str(v[i].build_id, m->build_id))
            return &v[i];
    return NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Quadratic in the modules, as a program loads a few hundred at most: a merge of thousands of
 * processes still compares each entry against that list only. */
int tp_merge_modules(const struct tp_report *in, size_t nin, struct tp_report *r)
{
    size_t cap = 0;
    for (size_t i = 0; i < nin; i++)
        cap += in[i].nmodules;
    if (!cap)
        return 0;
    struct tp_modinfo *v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < in[i].nmodules; j++) {
            const struct tp_modinfo *m = &in[i].modules[j];
            struct tp_modinfo *d = find(v, n, m);
            if (d) {
                /* departed only where no process still had it loaded at its report */
                d->departed = d->departed && m->departed;
                continue;
            }
            d = &v[n++];
            *d = *m; /* the addresses of the first process that listed it */
            d->path = dup_or_null(m->path);
            d->build_id = dup_or_null(m->build_id);
            if ((m->path && !d->path) || (m->build_id && !d->build_id)) {
                r->modules = v;
                r->nmodules = n;
                return -1;
            }
        }
    r->modules = v;
    r->nmodules = n;
    return 0;
}
