/* Call sites: the stack above an allocator call, TPROF_STACK frames deep, deduplicated
 * into a fixed-capacity lock-free table. Site 0 collects allocations made when the table was full. */
#ifndef TPROF_SITES_H
#define TPROF_SITES_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/runtime.h"

/* One cache line per site. The live-byte figures are written by every thread that allocates or
 * frees through the site; nothing else sits on their line (finding a site reads the index and the
 * frames, never this record), so two threads sharing a site share one line, not two. */
struct tp_site_rec {
    _Atomic uint64_t live, peak_live, at_peak, seen_pseq; /* bytes; see heap.c for at_peak */
    /* Counted per thread (struct tp_tally); tp_site_get() sums the threads' counts into these. */
    _Atomic uint64_t allocs, frees, bytes;
    uint32_t nframes; /* 0: record unused (lost an insertion race) */
} __attribute__((aligned(64)));

/* stack: frames per site (TPROF_STACK); max_sites: the table's capacity (TPROF_MAX_SITES), capped
 * to what the live-block table can name; warn (NULL for none): a line on stderr when the table
 * cannot be mapped. Given by the caller, so that the table needs neither the configuration nor
 * the life cycle. */
void tp_sites_init(int stack, uint64_t max_sites, void (*warn)(const char *fmt, ...));
/* The site of the current allocation from the frames the walk gave (raw, got; got 0 at
 * TPROF_STACK=1, or when there are none). ra is the shim's return address, the whole site at
 * TPROF_STACK=1. Our own frames at the top of raw are skipped. */
uint32_t tp_site_find(void *const *raw, int got, void *ra);
/* How many frames the shims' walk asks for, 0 for none (TPROF_STACK=1): the depth plus room for
 * our own frames (tp_unwind starts at the shim's caller and needs one of them at most: the realloc
 * shim above do_realloc). */
extern int tp_sites_want_n;
static inline int tp_sites_want(void)
{
    return tp_sites_want_n; /* inline: asked on every allocation */
}
#define TP_STACK_ROOM 3 /* our frames above the program's: the shim, maybe a helper, ... */
uint32_t tp_sites_count(void);
/* The record for the report: allocs, frees and bytes summed over the threads first. */
struct tp_site_rec *tp_site_get(uint32_t id);
/* The record for the hot path (live figures only). */
extern struct tp_site_rec *tp_site_recs;
static inline struct tp_site_rec *tp_site_hot(uint32_t id)
{
    return &tp_site_recs[id];
}
/* Frames of site id (return addresses, frames[0] called the allocator). */
const uintptr_t *tp_site_frames(uint32_t id, uint32_t *n);
uint64_t tp_sites_dropped(void);
/* Is addr inside libtprof.so? */
int tp_addr_is_ours(uintptr_t addr);
/* In the child after fork: counts restart at 0, tallies of the threads that did not survive the
 * fork are free for new threads. */
void tp_sites_fork_child(void);

/* Per-thread counts of allocations, frees and bytes per site: one row per site in a block of this
 * thread's, written without locked instructions (the owner is the only writer; the report reads
 * them with relaxed loads). A block outlives its thread and goes to the next new thread (counts
 * are sums: who adds to them does not matter). A thread without a block (it has exited, or no
 * memory) adds to a shared block with atomic adds. */
struct tp_tally {
    _Atomic uint64_t allocs, frees, bytes;
};
extern TP_TLS struct tp_tally *tp_tally_mine;
void tp_tally_slow(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes);

static inline void tally_bump(_Atomic uint64_t *a, uint64_t v)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + v,
                          memory_order_relaxed);
}
static inline void tp_site_count_alloc(uint32_t site, uint64_t bytes)
{
    struct tp_tally *t = tp_tally_mine;
    if (tp_likely(t != NULL)) {
        tally_bump(&t[site].allocs, 1);
        tally_bump(&t[site].bytes, bytes);
    } else {
        tp_tally_slow(site, 1, 0, bytes);
    }
}
static inline void tp_site_count_free(uint32_t site)
{
    struct tp_tally *t = tp_tally_mine;
    if (tp_likely(t != NULL))
        tally_bump(&t[site].frees, 1);
    else
        tp_tally_slow(site, 0, 1, 0);
}

#endif
