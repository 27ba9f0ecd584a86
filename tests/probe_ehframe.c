/* track/unwind/ehframe.c with the FDE table's probes (tests/probe.h). */
#include "track/unwind/ehframe.c"

#include "tests/probe.h"

long tp_eh_fde_count(const struct tp_eh_src *s)
{
    const uint8_t *t;
    long n;
    return table(s, &t, &n) < 0 ? -1 : n;
}

int tp_eh_fde_range(const struct tp_eh_src *s, long i, uintptr_t *start, uintptr_t *end)
{
    const uint8_t *t;
    long n;
    struct fde f;
    struct cie c;
    if (table(s, &t, &n) < 0 || i < 0 || i >= n ||
        read_fde(s, s->hdr + (uintptr_t)(intptr_t)entry(t, i, 1), &f, &c) < 0)
        return -1;
    *start = f.start;
    *end = f.end;
    return 0;
}
