/* The sampled mode's path for a block that is not sampled (TPROF_SAMPLE, heapsample.h), for the
 * malloc and free shims (preload/hook_malloc.c: malloc_hs, free_hs): what the exact global
 * figures need and nothing more. The shims jump to it when tp_hs_fast is set (once, at init),
 * before any frame is set up; it runs none of the general path's tests (the walk depth, the
 * tracking mode, one call in 16 timed, errno saved and restored).
 *
 * Per allocation: the countdown and this thread's row of counts (one TLS struct; a NULL row, or
 * a countdown that crosses 0, takes the slow path: a thread's first call, a sampled block, a
 * thread with no row of its own), the block's size from its chunk header, one locked add on the
 * global live bytes and a compare with the peak on the same line. Per free: the row, the filter
 * of sampled addresses, the size, one locked subtract.
 *
 * Why the locked add stays: the peak is the largest value the global live bytes take in one total
 * order of the allocations and frees that agrees with the order the program's own
 * synchronisation imposes (the modification order of tp_hg.live, by coherence). Counts kept per
 * thread and summed later lose that order: the sum of each thread's own largest live bytes is
 * only a bound on the peak. A check against the other threads' counts made only when this
 * thread's could raise the peak needs a full fence between publishing its own count and reading
 * theirs (else two threads each miss the other's allocation), which costs what a locked add on a
 * line of its own costs, and the reads move the other threads' lines whenever the live bytes are
 * near the peak, as they are most of the time in a program at its steady state
 * (bench/RESULTS.md has the measured costs). */
#ifndef TPROF_HEAP_FAST_H
#define TPROF_HEAP_FAST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "track/heap_state.h"
#include "track/heapsample.h"
#include "track/rawalloc.h"

/* 1 in the sampled mode once the accounting is set up (tp_heap_init) when the allocator is
 * glibc's (tp_hs_glibc); never cleared. With another allocator the sampled mode takes the
 * shims' general path, which asks it for the usable size. */
extern __attribute__((visibility("hidden"))) int tp_hs_fast;
/* 1 when every function of the malloc family is glibc's and its chunk header gives what
 * malloc_usable_size gives (checked at init, heap_sampled.c). */
extern __attribute__((visibility("hidden"))) int tp_hs_glibc;

/* The bytes the global figures count for block p: the allocator's usable size, the same at the
 * allocation and the free. glibc keeps a chunk's size in the word before the block, its low three
 * bits flags: the usable size is the chunk's size less that word, and less one more for a chunk
 * of its own mapping (IS_MMAPPED, 2), exactly what malloc_usable_size computes. */
static inline size_t tp_hs_chunk_usable(const void *p)
{
    size_t h;
    memcpy(&h, (const char *)p - sizeof h, sizeof h);
    return (h & ~(size_t)7) - (sizeof h + (h & 2) * (sizeof h / 2));
}

/* Any allocator: the chunk header when it is glibc's, else malloc_usable_size; dflt when the
 * allocator has none. */
static inline size_t tp_hs_usable(void *p, size_t dflt)
{
    if (tp_likely(tp_hs_glibc))
        return tp_hs_chunk_usable(p);
    return tp_raw.usable_size ? tp_raw.usable_size(p) : dflt;
}

/* A new global peak, or a race to one (heap_sampled.c). */
void tp_heap_hs_peak(int64_t live);

/* A block not sampled, of n bytes requested, on a thread with row r (tp_hs_me): counted before
 * the real call (so that nothing of the row is kept across it), taken back if the call fails. */
static inline __attribute__((always_inline)) void tp_hs_fast_count(struct tp_hs_row *r, size_t n)
{
    tp_hs_row_add(&r->allocs, 1);
    tp_hs_row_add(&r->bytes, n);
}
static inline void tp_hs_fast_uncount(struct tp_hs_row *r, size_t n)
{
    tp_hs_row_add(&r->allocs, (uint64_t)-1);
    tp_hs_row_add(&r->bytes, (uint64_t)-n);
}
/* u more usable bytes live */
static inline __attribute__((always_inline)) void tp_hs_fast_live(size_t u)
{
    /* compared signed: a block allocated before tprof started, freed after, takes off bytes that
     * were never added */
    int64_t live = (int64_t)(atomic_fetch_add_explicit(&tp_hg.live, u, memory_order_relaxed) + u);
    if (tp_unlikely(live > (int64_t)atomic_load_explicit(&tp_hg.peak, memory_order_relaxed)))
        tp_heap_hs_peak(live);
}

static inline __attribute__((always_inline)) void tp_hs_fast_free(struct tp_hs_row *r, size_t u)
{
    tp_hs_row_add(&r->frees, 1);
    atomic_fetch_sub_explicit(&tp_hg.live, u, memory_order_relaxed);
}

/* A free that is not sure to be of a block not sampled, or made with no row: its record is
 * taken out and accounted. The requested size of the sampled block it was, or -1. */
int64_t tp_heap_hs_free_slow(void *p);

#endif
