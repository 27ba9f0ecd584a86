/* The sampled heap mode (TPROF_SAMPLE=BYTES): each thread counts down the bytes it allocates
 * from a draw of an exponential distribution of mean BYTES; only the allocation that crosses zero
 * is unwound and recorded, and the countdown is drawn again. The countdown forgets how far it
 * was overshot, so every allocation of n bytes is sampled with probability p(n) = 1 - e^(-n/BYTES)
 * independently of the others (a Poisson process over the bytes allocated), and a sampled one
 * stands for 1/p(n) allocations and n/p(n) bytes: the Horvitz-Thompson estimator that tcmalloc's
 * and jemalloc's heap profilers and Go's runtime use. The variance of a site's estimate of bytes
 * is the sum over its allocations of n^2 (1 - p) / p, estimated without bias by the sum over its
 * samples of n^2 (1 - p) / p^2; the report gives 1.96 standard errors as the error at 95%.
 *
 * What is not sampled is still counted exactly (heap.c): allocations, frees and bytes requested
 * per thread, and the global live and peak in the allocator's usable sizes (malloc_usable_size:
 * the same figure at the allocation and at the free, without a record of the block). */
#ifndef TPROF_HEAPSAMPLE_H
#define TPROF_HEAPSAMPLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "track/runtime.h"

/* The mean bytes between samples, 0 when every block is recorded. Set once, before the first
 * allocation is recorded. */
extern uint64_t tp_hs_mean;
static inline int tp_hs_on(void)
{
    return tp_hs_mean != 0;
}
/* mean: TPROF_SAMPLE (0: off); seed: TPROF_SAMPLE_SEED (0: from the clock and the pid). A thread's
 * generator is seeded from the seed and the order in which threads first allocate. */
void tp_hs_init(uint64_t mean, uint64_t seed);
uint64_t tp_hs_seed(void);

/* In the sampled mode the shims' walk depth (sites.h: tp_sites_want_n) is set to -1, which sends
 * them to the sampled path at no cost to the exact one; the depth is kept here. Called after
 * tp_sites_init(). */
extern int tp_hs_want;
void tp_hs_steer_walk(void);

/* What the malloc shim reads of this thread's on every call, in one struct so that its address
 * is one load: the bytes to go before the next sample, and the thread's row of counts (below). */
struct tp_hs_row;
struct tp_hs_thread {
    int64_t left;
    struct tp_hs_row *me;
};
extern TP_TLS struct tp_hs_thread tp_hs_th;
#define tp_hs_left (tp_hs_th.left)
#define tp_hs_me   (tp_hs_th.me)
int tp_hs_cross(size_t n);
/* Is this allocation of n bytes to be sampled? */
static inline int tp_hs_take(size_t n)
{
    tp_hs_left -= (int64_t)n;
    if (tp_likely(tp_hs_left > 0))
        return 0;
    return tp_hs_cross(n);
}

/* Which addresses may be sampled blocks: a counting filter, one 16-bit count per hash of the
 * address, raised when a sampled block enters the live-block table and lowered when it leaves.
 * A count of 0 says p is not sampled in one load, where the table's lookup took 40 instructions on
 * every free (bench/RESULTS.md); a count that reaches its top stays there. */
#define TP_HS_FILTER_BITS 16
extern _Atomic uint16_t tp_hs_filter[1u << TP_HS_FILTER_BITS];
static inline _Atomic uint16_t *tp_hs_slot(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return &tp_hs_filter[h >> (64 - TP_HS_FILTER_BITS)];
}
static inline int tp_hs_maybe(const void *p)
{
    return atomic_load_explicit(tp_hs_slot(p), memory_order_relaxed) != 0;
}
void tp_hs_filter_add(const void *p);
void tp_hs_filter_del(const void *p);

/* The bytes a sampled block of n bytes stands for, rounded: the same figure at its allocation
 * and its free, so that a site's estimated live bytes come back to 0. */
uint64_t tp_hs_weight_bytes(uint64_t n);
/* x (a time) measured on a sampled block of n bytes, weighted as the estimate of the sum of x
 * over every block: x / p(n). */
uint64_t tp_hs_weigh(uint64_t x, uint64_t n);

/* Exact counts of every allocation and free, kept per thread without locked instructions (the
 * owner is the only writer; the report sums the threads' rows). tp_hs_me is this thread's row:
 * NULL before its first call, and for a thread that has none of its own (past the rows there
 * are, or exiting), which adds to tp_hs_shared with locked instructions. */
struct __attribute__((aligned(64))) tp_hs_row { /* a line each: two threads' would share one */
    _Atomic uint64_t allocs, frees, bytes;
    _Atomic int owned;
};
extern struct tp_hs_row tp_hs_shared;
/* This thread's row, or &tp_hs_shared. */
struct tp_hs_row *tp_hs_row_slow(void);
/* Add to a count of this thread's own row. */
static inline void tp_hs_row_add(_Atomic uint64_t *a, uint64_t v)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + v,
                          memory_order_relaxed);
}
static inline void hs_bump(_Atomic uint64_t *a, uint64_t v, int shared)
{
    if (tp_unlikely(shared))
        atomic_fetch_add_explicit(a, v, memory_order_relaxed);
    else
        tp_hs_row_add(a, v);
}
static inline void tp_hs_count_alloc(uint64_t n)
{
    struct tp_hs_row *r = tp_hs_me;
    if (tp_unlikely(!r))
        r = tp_hs_row_slow();
    hs_bump(&r->allocs, 1, r == &tp_hs_shared);
    hs_bump(&r->bytes, n, r == &tp_hs_shared);
}
static inline void tp_hs_count_free(void)
{
    struct tp_hs_row *r = tp_hs_me;
    if (tp_unlikely(!r))
        r = tp_hs_row_slow();
    hs_bump(&r->frees, 1, r == &tp_hs_shared);
}
/* The thread exits: its row goes to the next new thread, and what it still does is shared. */
void tp_hs_thread_exit(void);

/* A sampled block of n bytes allocated, or freed, at site. */
void tp_hs_site_alloc(uint32_t site, uint64_t n);
void tp_hs_site_free(uint32_t site, uint64_t n);

/* For the report. */
struct tp_hs_totals {
    uint64_t allocs, frees, bytes, samples;
};
void tp_hs_totals(struct tp_hs_totals *t);
struct tp_hs_site {
    double allocs, frees;   /* estimated */
    double var_bytes;       /* the estimate's variance, of the bytes allocated */
    uint64_t samples, live; /* sampled allocations; of them, not freed */
    double live_var;        /* the variance of the live bytes' estimate */
};
/* Site id's sums; 0 when it has none. */
int tp_hs_site_get(uint32_t id, struct tp_hs_site *out);
/* The half-width of the 95% interval of an estimate, in percent of it. */
double tp_hs_error_pct(double estimate, double var);

void tp_hs_fork_child(void);

#endif
