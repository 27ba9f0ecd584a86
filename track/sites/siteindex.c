/* The call-site index's generations (track/sites/siteindex.h). */
#include "common/pages.h"
#include "track/sites/siteindex.h"

#include <unistd.h>

static struct sidx *gens[IDX_MAX_GENS]; /* every index made, for the budget */
static int ngens;

void tp_sidx_reset(void)
{
    ngens = 0;
}

uint64_t tp_sidx_kept(void)
{
    uint64_t r = 0;
    for (int i = 0; i < ngens; i++)
        r += gens[i]->kept;
    return r;
}

struct sidx *tp_sidx_new(int bits)
{
    if (ngens == IDX_MAX_GENS)
        return NULL;
    struct sidx *x = tp_pages_map(idx_bytes(1ull << bits), 1);
    if (!x)
        return NULL;
    x->nslots = 1ull << bits;
    x->shift = 64 - bits;
    x->kept = idx_bytes(x->nslots);
    for (uint64_t i = 0; i < x->nslots; i++)
        atomic_store_explicit(&x->slots[i], IDX_EMPTY, memory_order_relaxed);
    gens[ngens++] = x;
    return x;
}

/* Put entry v into x (a move): its slot from hhi, written before the entry was published. */
static void idx_put(struct sidx *x, uint32_t v, const uint16_t *hhi)
{
    uint32_t id = (v & IDX_ID_MASK) - 1;
    uint64_t mask = x->nslots - 1;
    for (uint64_t i = idx_hash_of(hhi[id], v) >> x->shift;; i = (i + 1) & mask) {
        uint32_t expect = IDX_EMPTY;
        if (atomic_compare_exchange_strong(&x->slots[i], &expect, v))
            return;
    }
}

/* Give back the pages of an index just replaced, but its first (the header, with its successor):
 * they read as 0, MOVED, from now on. A lookup still in it then goes on in the successor, which
 * holds every entry it held, and an insert's CAS on an empty slot fails there as on a moved one.
 * Only the memory goes: the mapping stays, since such a lookup may still be reading it. */
static void idx_retire(struct sidx *old)
{
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    size_t bytes = (idx_bytes(old->nslots) + page - 1) / page * page;
    if (bytes <= page)
        return;
    tp_pages_zero((char *)old + page, bytes - page);
    old->kept = page;
}

/* Replace the index by one twice its size (growth lock held). */
int tp_sidx_grow(_Atomic(struct sidx *) *cur, const uint16_t *hhi)
{
    struct sidx *old = atomic_load(cur);
    struct sidx *x = tp_sidx_new(64 - old->shift + 1);
    if (!x)
        return -1;
    atomic_store_explicit(&old->next, x, memory_order_release);
    for (uint64_t i = 0; i < old->nslots; i++) {
        uint32_t v = IDX_EMPTY;
        if (!atomic_compare_exchange_strong(&old->slots[i], &v, IDX_MOVED))
            idx_put(x, v, hhi); /* an entry: it stays where it is too */
    }
    atomic_store_explicit(cur, x, memory_order_release);
    idx_retire(old);
    return 0;
}
