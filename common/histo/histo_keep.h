/* The first values a latency histogram keeps (implemented in common/histo/histo_keep.c), for
 * figures the buckets cannot give while few values were added: exact quantiles, and the median's
 * confidence interval from exact order statistics (two ranks in one bucket would otherwise give
 * an interval of zero width however much the values differ).
 *
 * The first TP_HISTO_KEEP values are kept, each in the slot of its index: an add costs one
 * relaxed store, no lock, no allocation. Past that many the buckets answer (common/histo/histo.c): a
 * reservoir sample would give an interval of TP_HISTO_KEEP values, far wider than the buckets'
 * enclosure of the interval of all of them. A slot holds value + 1, so that 0 means "claimed but
 * not yet written" for a reader racing an add (UINT64_MAX is stored as itself: the top value,
 * 584 years of nanoseconds, reads back one higher if it was UINT64_MAX - 1). */
#ifndef TPROF_COMMON_HISTO_KEEP_H
#define TPROF_COMMON_HISTO_KEEP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TP_HISTO_KEEP 4096

/* Value v, the i-th (0-based) added. */
static inline void tp_keep_add(_Atomic uint64_t *kept, uint64_t i, uint64_t v)
{
    if (i < TP_HISTO_KEEP)
        atomic_store_explicit(&kept[i], v == UINT64_MAX ? v : v + 1, memory_order_relaxed);
}

/* The samples written so far of the n values added, sorted into out (room for TP_HISTO_KEEP);
 * returns how many. */
size_t tp_keep_sorted(const _Atomic uint64_t *kept, uint64_t n, uint64_t *out);
/* src's kept values (of its n_src) after dst's (of n_dst, before dst's count grows), while
 * there is room: the merge keeps what adding src's values to dst one by one would have kept. */
void tp_keep_merge(_Atomic uint64_t *dst, uint64_t n_dst, const _Atomic uint64_t *src,
                   uint64_t n_src);
/* The distribution-free 95% confidence interval of the median of k sorted values: those of
 * ranks floor(k/2 - 1.96 sqrt(k)/2) and ceil(1 + k/2 + 1.96 sqrt(k)/2), clamped to [1, k]. */
void tp_keep_median_ci(const uint64_t *sorted, size_t k, uint64_t *lo, uint64_t *hi);

#endif
