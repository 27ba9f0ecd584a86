/* Call sites: stacks interned in a frame trie, per-site figures, roll-ups: the one header of track/sites/ for code outside it. */
#ifndef TPROF_TRACK_SITES_SITES
#define TPROF_TRACK_SITES_SITES

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "track/runtime.h"
#include "report/report.h"

/* Call sites: the stack above an allocator call, TPROF_STACK frames deep, deduplicated into a
 * lock-free table that grows within a memory budget (TPROF_MEMORY_BUDGET). Site 0 collects the
 * allocations made once the table may grow no more. */
/* Half a cache line per site: the live-byte figures, written by every thread that allocates or
 * frees through the site. Nothing else is kept per site on the hot path (finding a site reads the
 * index and the frames, never this record; the counts are per thread, struct tp_tally), so that a
 * big program's table costs 32 bytes a site here. */
struct tp_site_rec {
    _Atomic uint64_t live, peak_live, at_peak, seen_pseq; /* bytes; see heap.c for at_peak */
} __attribute__((aligned(32)));

/* A site as the report reads it: the live figures and the threads' counts summed. */
struct tp_site_sum {
    uint64_t live, peak_live, at_peak, seen_pseq;
    uint64_t allocs, frees, bytes;
    uint32_t nframes; /* 0: record unused (lost an insertion race, or never filled) */
};

/* stack: frames per site (TPROF_STACK); max_sites: a fixed cap on the sites (TPROF_MAX_SITES, 0
 * for none), capped to what the live-block table can name; budget: the bytes the table may use
 * (TPROF_MEMORY_BUDGET, 0 for the default, tp_sites_budget()); warn (NULL for none): a line on
 * stderr when the table cannot be mapped. Given by the caller, so that the table needs neither
 * the configuration nor the life cycle. */
void tp_sites_init(int stack, uint64_t max_sites, uint64_t budget,
                   void (*warn)(const char *fmt, ...));
/* The site of the current allocation from the frames the walk gave (raw, got; got 0 at
 * TPROF_STACK=1, or when there are none). ra is the shim's return address, the whole site at
 * TPROF_STACK=1. Our own frames at the top of raw are skipped. raw holds no null frame: tp_unwind
 * stops before a pc under 4096, so none is looked for on every allocation. */
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
/* The site for the report, the threads' counts summed. */
void tp_site_get(uint32_t id, struct tp_site_sum *out);
/* The record for the hot path (live figures only). */
extern struct tp_site_rec *tp_site_recs;
static inline struct tp_site_rec *tp_site_hot(uint32_t id)
{
    return &tp_site_recs[id];
}
/* Frames of site id (return addresses, frames[0] called the allocator). */
const uintptr_t *tp_site_frames(uint32_t id, uint32_t *n);
uint64_t tp_sites_dropped(void);
/* Why the table stopped growing (what the report's note names) and its state: the budget in
 * force (bytes), what the table holds in memory now (bytes; 0 when it is growing right now), the
 * sites it may hold, the index's slots. */
enum tp_sites_limit { TP_SITES_GROWING, TP_SITES_MAX_SITES, TP_SITES_BUDGET, TP_SITES_NO_MEMORY };
struct tp_sites_state {
    enum tp_sites_limit limit;
    uint64_t budget, resident, cap, index_slots;
};
void tp_sites_state(struct tp_sites_state *st);
/* What the table holds in memory, part by part, in bytes (their sum is what the budget is
 * checked against): the sites' records (32 a site), their stacks (8: two nodes of the frame trees),
 * the kept hashes (4), the index (what each of its generations still holds), the frame trees
 * (12 a node and the index of children) and the threads' count rows (pages touched). */
struct tp_sites_bytes {
    uint64_t records, stacks, hashes, index, trie, tally;
    uint32_t sites, nodes;
};
void tp_sites_bytes(struct tp_sites_bytes *b);
/* The default budget for a process whose peak RSS is rss bytes: max(5% of it, 64 MiB). */
uint64_t tp_sites_budget(uint64_t rss);
#define TP_SITES_BUDGET_MIN (64ull << 20)
/* Across fork the growth lock is held, so that a child never starts with an index half moved. */
void tp_sites_fork_prepare(void);
void tp_sites_fork_parent(void);
/* Is addr inside libtprof.so? */
int tp_addr_is_ours(uintptr_t addr);
/* In the child after fork: counts restart at 0, tallies of the threads that did not survive the
 * fork are free for new threads. */
void tp_sites_fork_child(void);

#include "track/sites/sitetally.h"

/* Which call sites the JSON report writes one by one, and the rest rolled up per function and
 * module (struct tp_site_rollup), with exact sums. */
/* Move to the front of all[0..k) the top n sites by each measure the report ranks by (live at
 * the peak, bytes allocated, allocations, live at exit; ties in the order given, sites with 0 of
 * a measure not ranked by it). Returns how many moved: at most 4n. */
size_t tp_rollup_select(struct tp_site *all, size_t k, size_t n);

/* What the caller knows of sites: the return addresses of record id (frames[0] called the
 * allocator), and for one of them the function holding it and its module (malloc'ed, NULL when
 * unknown), or 1 when the address is to be passed over (tprof's own code, the allocator). */
typedef const uintptr_t *(*tp_site_pcs_fn)(uint32_t id, uint32_t *n);
typedef int (*tp_describe_fn)(void *ctx, uintptr_t pc, char **function, char **module);

/* Roll rest[0..n) up into m->rollups. A site with frames is keyed by its frames[0]; one without
 * (frames NULL) holds its record number in nframes and is keyed by the function and module of
 * its first return address not passed over, each address described once. */
void tp_rollup_sites(struct tp_memory *m, const struct tp_site *rest, size_t n, tp_site_pcs_fn pcs,
                     tp_describe_fn describe, void *ctx);

#endif
