#include "cli/read/read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/out/out.h"

char *tp_site_key(const struct tp_site *s)
{
    struct tp_buf b;
    tp_buf_init(&b);
    for (size_t i = 0; i < s->nframes; i++) {
        const struct tp_frame *f = &s->frames[i];
        if (i)
            tp_buf_putc(&b, '|');
        if (f->line && f->file)
            tp_buf_printf(&b, "%s@%s:%d", f->function ? f->function : "?",
                          tp_base_name(f->file, "?"), f->line);
        else if (f->function)
            tp_buf_printf(&b, "%s@%s", f->function, tp_base_name(f->module, "?"));
        else
            tp_buf_printf(&b, "%s+0x%llx", tp_base_name(f->module, "?"),
                          (unsigned long long)f->offset);
    }
    char *k = tp_buf_ok(&b) ? strdup(tp_buf_str(&b)) : NULL;
    tp_buf_free(&b);
    return k;
}

static int by_key(const void *x, const void *y)
{
    const struct tp_keyed_site *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    /* Equal keys keep the report's order, so a group's frames are its first site's. */
    return c ? c : a->nmerged < b->nmerged ? -1 : a->nmerged > b->nmerged;
}

int tp_sites_by_key(const struct tp_site *sites, size_t nsites, struct tp_keyed_site **out,
                    size_t *n)
{
    *out = NULL;
    *n = 0;
    struct tp_keyed_site *k = calloc(nsites ? nsites : 1, sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < nsites; i++) {
        k[i].key = tp_site_key(&sites[i]);
        k[i].site = sites[i];
        k[i].nmerged = i; /* the original position, for a stable sort */
        if (!k[i].key) {
            tp_keyed_sites_free(k, i);
            return -1;
        }
    }
    qsort(k, nsites, sizeof *k, by_key);
    size_t m = 0;
    for (size_t i = 0; i < nsites; i++) {
        if (m && !strcmp(k[m - 1].key, k[i].key)) {
            struct tp_site *d = &k[m - 1].site;
            const struct tp_site *s = &k[i].site;
            if (d->est.samples || s->est.samples)
                tp_estimate_add(&d->est, d->bytes, d->live_at_exit_bytes, &s->est, s->bytes,
                                s->live_at_exit_bytes);
            d->allocs += s->allocs;
            d->frees += s->frees;
            d->bytes += s->bytes;
            d->peak_live_bytes += s->peak_live_bytes;
            d->live_at_peak_bytes += s->live_at_peak_bytes;
            d->live_at_exit_bytes += s->live_at_exit_bytes;
            d->live_at_exit_allocs += s->live_at_exit_allocs;
            k[m - 1].nmerged++;
            free(k[i].key);
            continue;
        }
        k[m] = k[i];
        k[m].nmerged = 1;
        m++;
    }
    *out = k;
    *n = m;
    return 0;
}

void tp_keyed_sites_free(struct tp_keyed_site *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++)
        free(k[i].key);
    free(k);
}
