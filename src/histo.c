/* Log-linear latency histogram.
 *
 * Values below 64 have a bucket each; above, every power of two is cut into 64 buckets, so a
 * bucket is at most 1/64 of its lower bound wide and its midpoint is within 0.8% of any value in
 * it. Values up to 2^44 ns (4.9 hours) are bucketed; larger ones share the last bucket (max is
 * kept exactly anyway). 2,496 counters, 20 KiB per histogram.
 *
 * Adds are lock-free: relaxed atomic increments, CAS loops for min and max. The variance comes
 * from sums of (v - shift) and (v - shift)^2, with shift the first value seen, which keeps the
 * usual cancellation of E[x^2] - E[x]^2 away when the spread is small next to the mean. */
#include "histo.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SUB_BITS 6
#define SUB (1u << SUB_BITS)
#define MAX_EXP 43
#define NBUCKETS ((MAX_EXP - SUB_BITS + 2) * SUB)

struct tp_histo {
    _Atomic uint64_t n, min, max;
    _Atomic uint64_t shift;   /* first value + 1; 0 until set */
    _Atomic uint64_t sum_bits, sumsq_bits; /* doubles, as bits, updated by CAS */
    _Atomic uint64_t b[NBUCKETS];
};

static inline unsigned bucket_of(uint64_t v)
{
    if (v < SUB)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    if (e > MAX_EXP)
        return NBUCKETS - 1;
    unsigned sub = (unsigned)(v >> (e - SUB_BITS)) & (SUB - 1);
    return (e - SUB_BITS + 1) * SUB + sub;
}

/* [lo, hi) of a bucket. */
static void bucket_range(unsigned i, uint64_t *lo, uint64_t *hi)
{
    if (i < SUB) {
        *lo = i;
        *hi = i + 1;
        return;
    }
    unsigned e = i / SUB + SUB_BITS - 1, sub = i % SUB;
    uint64_t width = 1ull << (e - SUB_BITS);
    *lo = (1ull << e) + sub * width;
    *hi = *lo + width;
}

struct tp_histo *tp_histo_new(void)
{
    struct tp_histo *h = calloc(1, sizeof *h);
    if (h)
        atomic_store(&h->min, UINT64_MAX);
    return h;
}

void tp_histo_destroy(struct tp_histo *h)
{
    free(h);
}

static inline double bits_to_d(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint64_t d_to_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void add_double(_Atomic uint64_t *a, double x)
{
    uint64_t old = atomic_load_explicit(a, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(a, &old, d_to_bits(bits_to_d(old) + x),
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

void tp_histo_add(struct tp_histo *h, uint64_t v)
{
    atomic_fetch_add_explicit(&h->b[bucket_of(v)], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->n, 1, memory_order_relaxed);
    uint64_t cur = atomic_load_explicit(&h->min, memory_order_relaxed);
    while (v < cur && !atomic_compare_exchange_weak_explicit(&h->min, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
    cur = atomic_load_explicit(&h->max, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(&h->max, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
    uint64_t shift = atomic_load_explicit(&h->shift, memory_order_relaxed);
    if (shift == 0) {
        uint64_t want = v + 1;
        if (atomic_compare_exchange_strong(&h->shift, &shift, want))
            shift = want;
    }
    double x = (double)v - (double)(shift - 1);
    add_double(&h->sum_bits, x);
    add_double(&h->sumsq_bits, x * x);
}

void tp_histo_merge(struct tp_histo *dst, const struct tp_histo *src)
{
    uint64_t n = atomic_load(&src->n);
    if (!n)
        return;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        uint64_t c = atomic_load_explicit(&src->b[i], memory_order_relaxed);
        if (c)
            atomic_fetch_add(&dst->b[i], c);
    }
    /* Re-express src's sums around dst's shift. */
    uint64_t ds = atomic_load(&dst->shift);
    if (ds == 0) {
        uint64_t want = atomic_load(&src->shift);
        atomic_compare_exchange_strong(&dst->shift, &ds, want);
        ds = atomic_load(&dst->shift);
    }
    double d = (double)(atomic_load(&src->shift) - 1) - (double)(ds - 1);
    double s1 = bits_to_d(atomic_load(&src->sum_bits)), s2 = bits_to_d(atomic_load(&src->sumsq_bits));
    add_double(&dst->sum_bits, s1 + (double)n * d);
    add_double(&dst->sumsq_bits, s2 + 2 * d * s1 + (double)n * d * d);
    atomic_fetch_add(&dst->n, n);
    uint64_t mn = atomic_load(&src->min), mx = atomic_load(&src->max), cur;
    cur = atomic_load(&dst->min);
    while (mn < cur && !atomic_compare_exchange_weak(&dst->min, &cur, mn))
        ;
    cur = atomic_load(&dst->max);
    while (mx > cur && !atomic_compare_exchange_weak(&dst->max, &cur, mx))
        ;
}

uint64_t tp_histo_count(const struct tp_histo *h)
{
    return atomic_load(&h->n);
}

/* The value of rank r (1-based) in sorted order, from the buckets: the midpoint of the bucket
 * holding it, kept within the exact [min, max]. */
static double value_at_rank(const struct tp_histo *h, double r)
{
    uint64_t n = atomic_load(&h->n), mn = atomic_load(&h->min), mx = atomic_load(&h->max);
    if (n == 0)
        return 0;
    if (r <= 1)
        return (double)mn;
    if (r >= (double)n)
        return (double)mx;
    uint64_t want = (uint64_t)ceil(r), seen = 0;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        seen += atomic_load_explicit(&h->b[i], memory_order_relaxed);
        if (seen >= want) {
            uint64_t lo, hi;
            bucket_range(i, &lo, &hi);
            double mid = i < SUB ? (double)lo : ((double)lo + (double)(hi - 1)) / 2;
            if (mid < (double)mn)
                mid = (double)mn;
            if (mid > (double)mx)
                mid = (double)mx;
            return mid;
        }
    }
    return (double)mx;
}

uint64_t tp_histo_quantile(const struct tp_histo *h, double q)
{
    uint64_t n = atomic_load(&h->n);
    if (n == 0)
        return 0;
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    double r = ceil(q * (double)n);
    /* The extremes are known exactly: no detour through a double. */
    if (r <= 1)
        return atomic_load(&h->min);
    if (r >= (double)n)
        return atomic_load(&h->max);
    return (uint64_t)llround(value_at_rank(h, r));
}

void tp_histo_summary(const struct tp_histo *h, struct tp_latency *out)
{
    memset(out, 0, sizeof *out);
    uint64_t n = atomic_load(&h->n);
    out->n = n;
    if (n == 0)
        return;
    out->min = atomic_load(&h->min);
    out->max = atomic_load(&h->max);
    out->p50 = tp_histo_quantile(h, 0.50);
    out->p95 = tp_histo_quantile(h, 0.95);
    out->p99 = tp_histo_quantile(h, 0.99);
    double shift = (double)(atomic_load(&h->shift) - 1);
    double s1 = bits_to_d(atomic_load(&h->sum_bits)), s2 = bits_to_d(atomic_load(&h->sumsq_bits));
    double mean = s1 / (double)n;
    out->mean = shift + mean;
    double var = n > 1 ? (s2 - (double)n * mean * mean) / (double)(n - 1) : 0;
    out->stddev = var > 0 ? sqrt(var) : 0;
    /* Distribution-free 95% interval of the median: order statistics n/2 -+ 1.96 sqrt(n)/2. */
    double half = 1.959964 * sqrt((double)n) / 2;
    out->p50_ci_lo = (double)llround(value_at_rank(h, floor((double)n / 2 - half)));
    out->p50_ci_hi = (double)llround(value_at_rank(h, ceil((double)n / 2 + half + 1)));
}
