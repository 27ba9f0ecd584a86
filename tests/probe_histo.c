/* common/histo/histo.c with any quantile (tests/probe.h). */
#include "common/histo/histo.c"

#include "tests/probe.h"

uint64_t tp_histo_quantile(const struct tp_histo *h, double q)
{
    uint64_t n = atomic_load(&h->n);
    if (n == 0)
        return 0;
    struct sorted s = sorted_samples(h, n);
    uint64_t v = quantile(h, n, &s, q);
    sorted_free(&s);
    return v;
}
