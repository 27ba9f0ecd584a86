/* The samples a latency histogram keeps: reading them sorted, merging, the median's interval. */
#include "common/histo/histo_keep.h"

#include <math.h>

/* Heapsort: in place, no allocation (a report is written inside the profiled process, whose
 * malloc tprof interposes), O(k log k) for the few thousand samples. */
static void sift(uint64_t *a, size_t root, size_t n)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[root] >= a[child])
            return;
        uint64_t t = a[root];
        a[root] = a[child];
        a[child] = t;
    }
}

static void sort_u64(uint64_t *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift(a, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift(a, 0, end);
    }
}

static uint64_t decode(uint64_t s)
{
    return s == UINT64_MAX ? s : s - 1;
}

size_t tp_keep_sorted(const _Atomic uint64_t *kept, uint64_t n, uint64_t *out)
{
    size_t slots = n < TP_HISTO_KEEP ? (size_t)n : TP_HISTO_KEEP, k = 0;
    for (size_t i = 0; i < slots; i++) {
        uint64_t s = atomic_load_explicit(&kept[i], memory_order_relaxed);
        if (s)
            out[k++] = decode(s);
    }
    sort_u64(out, k);
    return k;
}

void tp_keep_merge(_Atomic uint64_t *dst, uint64_t n_dst, const _Atomic uint64_t *src,
                   uint64_t n_src)
{
    for (uint64_t j = 0; j < n_src && n_dst + j < TP_HISTO_KEEP; j++)
        atomic_store_explicit(&dst[n_dst + j], atomic_load_explicit(&src[j], memory_order_relaxed),
                              memory_order_relaxed);
}

/* ceil(x) as a rank within [1, k]. */
static size_t rank(double x, size_t k)
{
    x = ceil(x);
    return !(x >= 1) ? 1 : x >= (double)k ? k : (size_t)x;
}

void tp_keep_median_ci(const uint64_t *sorted, size_t k, uint64_t *lo, uint64_t *hi)
{
    if (k == 0) {
        *lo = *hi = 0;
        return;
    }
    double half = 1.959964 * sqrt((double)k) / 2;
    *lo = sorted[rank(floor((double)k / 2 - half), k) - 1];
    *hi = sorted[rank((double)k / 2 + half + 1, k) - 1];
}
