/* Which call sites the JSON report writes, and the rest rolled up (track/sites/sites.h). Runs at a
 * report, under the guard: allocates normally. */
#include "track/sites/sites.h"
#include "report/siterollup.h"

#include <stdlib.h>
#include <string.h>

#include "track/uthash_tp.h"

enum { BY_PEAK, BY_BYTES, BY_ALLOCS, BY_EXIT, NMEASURES };

static uint64_t measure(const struct tp_site *s, int which)
{
    switch (which) {
    case BY_PEAK: return s->live_at_peak_bytes;
    case BY_BYTES: return s->bytes;
    case BY_ALLOCS: return s->allocs;
    default: return s->live_at_exit_bytes;
    }
}

/* Sift v[i] down the min-heap v[0..n). */
static void sift(uint64_t *v, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && v[l] < v[m])
            m = l;
        if (l + 1 < n && v[l + 1] < v[m])
            m = l + 1;
        if (m == i)
            return;
        uint64_t t = v[i];
        v[i] = v[m];
        v[m] = t;
        i = m;
    }
}

/* The n-th largest of each measure of all[0..k) (1 <= n < k) into t[]: a min-heap of the n
 * largest per measure in heap[w * n..], all four in one pass over the sites (a big program's
 * array is larger than the caches: one read of it, not four); most sites compare once against
 * each top. */
static void nth_largest(const struct tp_site *all, size_t k, size_t n, uint64_t *heap, uint64_t *t)
{
    for (int w = 0; w < NMEASURES; w++) {
        uint64_t *v = heap + (size_t)w * n;
        for (size_t i = 0; i < n; i++)
            v[i] = measure(&all[i], w);
        for (size_t i = n / 2; i-- > 0;)
            sift(v, n, i);
    }
    for (size_t i = n; i < k; i++)
        for (int w = 0; w < NMEASURES; w++) {
            uint64_t *v = heap + (size_t)w * n, x = measure(&all[i], w);
            if (x > v[0]) {
                v[0] = x;
                sift(v, n, 0);
            }
        }
    for (int w = 0; w < NMEASURES; w++)
        t[w] = heap[(size_t)w * n];
}

size_t tp_rollup_select(struct tp_site *all, size_t k, size_t n)
{
    if (n == 0 || k <= n)
        return k;
    unsigned char *mark = calloc(k, 1);
    uint64_t *v = malloc(NMEASURES * n * sizeof *v);
    if (!mark || !v) {
        free(mark);
        free(v);
        return n; /* out of memory: the first n, in the caller's order */
    }
    uint64_t t[NMEASURES];
    size_t taken[NMEASURES] = {0};
    nth_largest(all, k, n, v, t);
    /* above each n-th first, then its ties in order, every measure in the same two passes */
    for (size_t i = 0; i < k; i++)
        for (int w = 0; w < NMEASURES; w++)
            if (measure(&all[i], w) > t[w]) {
                mark[i] = 1;
                taken[w]++;
            }
    for (size_t i = 0; i < k; i++)
        for (int w = 0; w < NMEASURES; w++)
            if (taken[w] < n && t[w] > 0 && measure(&all[i], w) == t[w]) {
                mark[i] = 1;
                taken[w]++;
            }
    size_t front = 0;
    for (size_t i = 0; i < k; i++) {
        if (!mark[i])
            continue;
        struct tp_site s = all[front];
        all[front] = all[i];
        all[i] = s;
        mark[i] = mark[front];
        mark[front] = 1;
        front++;
    }
    free(mark);
    free(v);
    return front;
}

struct row {
    UT_hash_handle hh;
    struct tp_site_rollup r;
    size_t klen;
    char key[]; /* function NUL module */
};

static int by_bytes(const void *a, const void *b)
{
    const struct tp_site_rollup *x = a, *y = b;
    if (x->live_at_peak_bytes != y->live_at_peak_bytes)
        return x->live_at_peak_bytes < y->live_at_peak_bytes ? 1 : -1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->sites < y->sites ? 1 : x->sites > y->sites ? -1 : 0;
}

static struct row *row_of(struct row **tab, const char *fn, const char *mod)
{
    size_t lf = fn ? strlen(fn) : 0, lm = mod ? strlen(mod) : 0, klen = lf + lm + 3;
    struct row *r = calloc(1, sizeof *r + klen); /* the key built in place, freed if found */
    if (!r)
        return NULL;
    /* byte 0 says which of the two are NULL, so that NULL and "" differ */
    r->key[0] = (char)((fn ? 1 : 0) | (mod ? 2 : 0));
    memcpy(r->key + 1, fn ? fn : "", lf + 1);
    memcpy(r->key + 2 + lf, mod ? mod : "", lm + 1);
    struct row *old;
    HASH_FIND(hh, *tab, r->key, klen, old);
    if (old) {
        free(r);
        return old;
    }
    r->klen = klen;
    r->r.function = fn ? strdup(fn) : NULL;
    r->r.module = mod ? strdup(mod) : NULL;
    HASH_ADD(hh, *tab, key, klen, r);
    return r;
}

/* What one return address stands for: passed over, or a row. */
struct pc_row {
    UT_hash_handle hh;
    uintptr_t pc;
    int skip;
    struct row *row;
};

static struct row *row_of_pc(struct row **tab, struct pc_row **seen, uintptr_t pc, int *skip,
                             tp_describe_fn describe, void *ctx)
{
    struct pc_row *p;
    HASH_FIND(hh, *seen, &pc, sizeof pc, p);
    if (!p) {
        char *fn = NULL, *mod = NULL;
        p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->pc = pc;
        p->skip = describe(ctx, pc, &fn, &mod);
        if (!p->skip)
            p->row = row_of(tab, fn, mod);
        free(fn);
        free(mod);
        HASH_ADD(hh, *seen, pc, sizeof p->pc, p);
    }
    *skip = p->skip;
    return p->row;
}

static void add_site(struct row *r, const struct tp_site *s)
{
    r->r.sites++;
    r->r.allocs += s->allocs;
    r->r.frees += s->frees;
    r->r.bytes += s->bytes;
    r->r.live_at_peak_bytes += s->live_at_peak_bytes;
    r->r.live_at_exit_bytes += s->live_at_exit_bytes;
    r->r.live_at_exit_allocs += s->live_at_exit_allocs;
}

void tp_rollup_sites(struct tp_memory *m, const struct tp_site *rest, size_t n, tp_site_pcs_fn pcs,
                     tp_describe_fn describe, void *ctx)
{
    struct row *tab = NULL, *r, *tmp;
    struct pc_row *seen = NULL, *p, *ptmp;
    for (size_t i = 0; i < n; i++) {
        const struct tp_site *s = &rest[i];
        r = NULL;
        if (s->frames) {
            r = row_of(&tab, s->nframes ? s->frames[0].function : NULL,
                       s->nframes ? s->frames[0].module : NULL);
        } else {
            uint32_t nf;
            const uintptr_t *f = pcs((uint32_t)s->nframes, &nf);
            int skip = 1;
            for (uint32_t j = 0; j < nf && skip; j++)
                r = row_of_pc(&tab, &seen, f[j], &skip, describe, ctx);
            if (skip) /* every frame passed over, or none */
                r = row_of(&tab, NULL, NULL);
        }
        if (r)
            add_site(r, s); /* else out of memory: the totals say what is missing */
    }
    HASH_ITER(hh, seen, p, ptmp)
    {
        HASH_DEL(seen, p);
        free(p);
    }
    size_t count = HASH_COUNT(tab), k = 0;
    m->rollups = count ? calloc(count, sizeof *m->rollups) : NULL;
    HASH_ITER(hh, tab, r, tmp)
    {
        HASH_DEL(tab, r);
        if (m->rollups)
            m->rollups[k++] = r->r;
        else {
            free(r->r.function);
            free(r->r.module);
        }
        free(r);
    }
    m->nrollups = k;
    if (k)
        qsort(m->rollups, k, sizeof *m->rollups, by_bytes);
}
