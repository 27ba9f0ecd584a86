/* Per-thread counts of allocations, frees and bytes per call site (track/sites/sitetally.c), kept
 * apart from track/sites/sites.h, which includes this. */
#ifndef TPROF_SITETALLY_H
#define TPROF_SITETALLY_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/runtime.h"

/* Per-thread counts of allocations, frees and bytes per site: one row per site in a block of this
 * thread's, written without locked instructions (the owner is the only writer; the report reads
 * them with relaxed loads). A row holds the low 32 bits of each count, 12 bytes a site a thread;
 * what passes 2^32 is carried into the shared rows (struct tp_tally_wide) with atomic adds, which
 * a hot site does once per 4 GiB or 2^32 calls. A block outlives its thread and goes to the next
 * new thread (counts are sums: who adds to them does not matter). A thread without a block (it has
 * exited, or no memory) adds to the shared rows too. A report written while a count is being
 * carried may see it 2^32 short for that instant; the exit report, once the program's threads are
 * done, never does. */
struct tp_tally {
    _Atomic uint32_t allocs, frees, bytes;
};
struct tp_tally_wide {
    _Atomic uint64_t allocs, frees, bytes;
};
extern TP_TLS struct tp_tally *tp_tally_mine;
void tp_tally_slow(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes);
/* Add allocs, frees, bytes times 2^32 to the shared rows (a thread's row wrapped around). */
void tp_tally_carry(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes);
/* The tallies' side (track/sites/sitetally.c): set up for rows rows a block, sum a site's counts, the
 * child's restart after fork, and the bytes the blocks hold in memory. */
int tp_tally_init(uint32_t rows);
void tp_tally_sum(uint32_t site, uint64_t *allocs, uint64_t *frees, uint64_t *bytes);
void tp_tally_fork_child(uint32_t used);
uint64_t tp_tally_resident(uint32_t used);

static inline void tp_site_count_alloc(uint32_t site, uint64_t bytes)
{
    struct tp_tally *t = tp_tally_mine;
    if (tp_likely(t != NULL)) {
        struct tp_tally *r = &t[site];
        uint32_t a = atomic_load_explicit(&r->allocs, memory_order_relaxed) + 1;
        uint64_t b = atomic_load_explicit(&r->bytes, memory_order_relaxed) + bytes;
        atomic_store_explicit(&r->allocs, a, memory_order_relaxed);
        atomic_store_explicit(&r->bytes, (uint32_t)b, memory_order_relaxed);
        if (tp_unlikely(a == 0 || b >> 32))
            tp_tally_carry(site, a == 0, 0, b >> 32);
    } else {
        tp_tally_slow(site, 1, 0, bytes);
    }
}
static inline void tp_site_count_free(uint32_t site)
{
    struct tp_tally *t = tp_tally_mine;
    if (tp_likely(t != NULL)) {
        uint32_t f = atomic_load_explicit(&t[site].frees, memory_order_relaxed) + 1;
        atomic_store_explicit(&t[site].frees, f, memory_order_relaxed);
        if (tp_unlikely(f == 0))
            tp_tally_carry(site, 0, 1, 0);
    } else {
        tp_tally_slow(site, 0, 1, 0);
    }
}

#endif
