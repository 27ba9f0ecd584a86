/* Log-linear latency histogram.
 *
 * Buckets: values below 64 have a bucket each; every power of two above is cut into 64 equal
 * buckets, up to 2^64 - 1. A bucket is at most 1/64 of its lower bound wide, so its midpoint is
 * within 1/128 (0.78%) of any value in it, over the whole uint64 range. 59 x 64 = 3,776 counters
 * plus 64 bytes of totals, and the first 4,096 values themselves (common/histo/histo_keep.h: exact
 * quantiles and the median's interval while there are no more): 63,040 bytes per histogram,
 * mapped once, never grown.
 *
 * Adds are lock-free and allocation-free (relaxed C11 atomics; the histogram lives inside hooks
 * that run on every thread):
 * - n, the buckets and the sum are fetch_adds. The sum is exact: 128 bits kept in two 64-bit
 *   words, the high word taking the carry when the low one wraps (which needs 2^64 ns = 584 years
 *   of summed latency, so in practice the high word stays 0).
 * - min and max are CAS loops that only write when the value is a new extreme.
 * - The variance comes from S2 = sum of (v - s)^2, s being the first value added (a shift that
 *   keeps the classic cancellation of E[v^2] - E[v]^2 away when the spread is small next to the
 *   mean). S2 is a double-double: a CAS loop adds the square to the high double and the exact
 *   rounding error of that addition (TwoSum) plus that of the square (TwoProd) goes to the low
 *   double (a second CAS, skipped when the error is 0: always while S2 < 2^53). When the first
 *   value is an outlier far from the bulk, S2 is about n times the spread term it must yield;
 *   a plain double sum would lose up to n * 2^-53 of it (10^-7 at 10^9 calls), the double-double
 *   n * 2^-106. The variance is computed at summary time as (S2 - (sum - n s)^2 / n) / (n - 1)
 *   in long double from the exact sum. A 128-bit integer sum of squares would need a lock or a
 *   three-word carry chain whose torn intermediate states a snapshot reader could see. */
#include "common/histo/histo.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/histo/histo_keep.h"
#include "common/pages.h"

#define SUB_BITS 6
#define SUB      (1u << SUB_BITS)
#define NBUCKETS ((64 - SUB_BITS + 1) * SUB)

struct tp_histo {
    _Atomic uint64_t n, min, max;
    _Atomic uint64_t shift;          /* first value + 1; 0 until set (see shift_of) */
    _Atomic uint64_t sum_lo, sum_hi; /* exact sum of the values, 128 bits */
    _Atomic uint64_t sq_hi, sq_lo;   /* S2 as a double-double, doubles stored as bits */
    _Atomic uint64_t b[NBUCKETS];
    _Atomic uint64_t
        kept[TP_HISTO_KEEP]; /* samples (common/histo/histo_keep.h), value + 1; 0 empty */
};

_Static_assert(sizeof(struct tp_histo) <= 64 * 1024, "histogram larger than 64 KiB");

static inline unsigned bucket_of(uint64_t v)
{
    if (v < SUB)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    unsigned sub = (unsigned)(v >> (e - SUB_BITS)) & (SUB - 1);
    return (e - SUB_BITS + 1) * SUB + sub;
}

/* First and last value of a bucket (inclusive: the last bucket ends at UINT64_MAX). */
static void bucket_range(unsigned i, uint64_t *first, uint64_t *last)
{
    if (i < SUB) {
        *first = *last = i;
        return;
    }
    unsigned e = i / SUB + SUB_BITS - 1, sub = i % SUB;
    uint64_t width = 1ull << (e - SUB_BITS);
    *first = (1ull << e) + sub * width;
    *last = *first + (width - 1);
}

/* From the kernel, not an allocator: a histogram is made inside hooks (an op's first call, a
 * forked child), and its pages cost memory only once touched (the samples' as they fill). */
struct tp_histo *tp_histo_new(void)
{
    struct tp_histo *h = tp_pages_map(sizeof *h, 0);
    if (h)
        atomic_store(&h->min, UINT64_MAX);
    return h;
}

size_t tp_histo_bytes(void)
{
    return sizeof(struct tp_histo);
}

struct tp_histo *tp_histo_at(void *zeroed)
{
    struct tp_histo *h = zeroed;
    atomic_store(&h->min, UINT64_MAX);
    return h;
}

void tp_histo_destroy(struct tp_histo *h)
{
    if (h)
        tp_pages_unmap(h, sizeof *h);
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

/* hi += x, with the exact rounding error of that addition (plus err) added to lo. */
static void add_dd(_Atomic uint64_t *hi, _Atomic uint64_t *lo, double x, double err)
{
    uint64_t old = atomic_load_explicit(hi, memory_order_relaxed);
    double a, s;
    do {
        a = bits_to_d(old);
        s = a + x;
    } while (!atomic_compare_exchange_weak_explicit(hi, &old, d_to_bits(s), memory_order_relaxed,
                                                    memory_order_relaxed));
    double bv = s - a;
    double e = (a - (s - bv)) + (x - bv) + err; /* TwoSum (Knuth) */
    if (e != 0)
        add_double(lo, e);
}

/* x * x = *p + *e exactly (Dekker's TwoProd; FMA where the compiler knows it is in hardware). */
static inline void square(double x, double *p, double *e)
{
    *p = x * x;
    if (x > -67108864.0 && x < 67108864.0) { /* |x| < 2^26: the square has 52 bits, exact */
        *e = 0;
        return;
    }
#ifdef __FP_FAST_FMA
    *e = __builtin_fma(x, x, -*p);
#else
    double t = 134217729.0 * x; /* 2^27 + 1 */
    double hi = t - (t - x), lo = x - hi;
    *e = ((hi * hi - *p) + 2 * hi * lo) + lo * lo;
#endif
}

/* The stored shift is value + 1 so that 0 can mean "unset"; UINT64_MAX stands for itself - 1. */
static inline uint64_t shift_of(uint64_t stored)
{
    return stored - 1;
}

/* v - s as a double, from the exact integer difference (one rounding at most). */
static inline double diff(uint64_t v, uint64_t s)
{
    return v >= s ? (double)(v - s) : -(double)(s - v);
}

void tp_histo_add(struct tp_histo *h, uint64_t v)
{
    atomic_fetch_add_explicit(&h->b[bucket_of(v)], 1, memory_order_relaxed);
    tp_keep_add(h->kept, atomic_fetch_add_explicit(&h->n, 1, memory_order_relaxed), v);
    uint64_t cur = atomic_load_explicit(&h->min, memory_order_relaxed);
    while (v < cur && !atomic_compare_exchange_weak_explicit(&h->min, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
    cur = atomic_load_explicit(&h->max, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(&h->max, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
    uint64_t old = atomic_fetch_add_explicit(&h->sum_lo, v, memory_order_relaxed);
    if (old + v < old)
        atomic_fetch_add_explicit(&h->sum_hi, 1, memory_order_relaxed);
    uint64_t stored = atomic_load_explicit(&h->shift, memory_order_relaxed);
    if (stored == 0) {
        uint64_t want = v == UINT64_MAX ? v : v + 1;
        /* On failure, stored receives the winner's shift. */
        if (atomic_compare_exchange_strong_explicit(&h->shift, &stored, want, memory_order_relaxed,
                                                    memory_order_relaxed))
            stored = want;
    }
    double p, e;
    square(diff(v, shift_of(stored)), &p, &e);
    add_dd(&h->sq_hi, &h->sq_lo, p, e);
}

/* The same for a histogram only one thread adds to (tp_histo_add_own): no locked instruction,
 * the same result. A reader on another thread sees each word whole (aligned 8-byte stores), as
 * it would between two locked adds. */
static inline void bump(_Atomic uint64_t *a, uint64_t v)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

static void add_dd_own(_Atomic uint64_t *hi, _Atomic uint64_t *lo, double x, double err)
{
    double a = bits_to_d(atomic_load_explicit(hi, memory_order_relaxed)), s = a + x;
    atomic_store_explicit(hi, d_to_bits(s), memory_order_relaxed);
    double bv = s - a;
    double e = (a - (s - bv)) + (x - bv) + err; /* TwoSum (Knuth), as add_dd */
    if (e != 0)
        atomic_store_explicit(
            lo, d_to_bits(bits_to_d(atomic_load_explicit(lo, memory_order_relaxed)) + e),
            memory_order_relaxed);
}

void tp_histo_add_own(struct tp_histo *h, uint64_t v)
{
    bump(&h->b[bucket_of(v)], 1);
    uint64_t i = atomic_load_explicit(&h->n, memory_order_relaxed);
    tp_keep_add(h->kept, i, v);
    atomic_store_explicit(&h->n, i + 1, memory_order_relaxed);
    if (v < atomic_load_explicit(&h->min, memory_order_relaxed))
        atomic_store_explicit(&h->min, v, memory_order_relaxed);
    if (v > atomic_load_explicit(&h->max, memory_order_relaxed))
        atomic_store_explicit(&h->max, v, memory_order_relaxed);
    uint64_t old = atomic_load_explicit(&h->sum_lo, memory_order_relaxed);
    atomic_store_explicit(&h->sum_lo, old + v, memory_order_relaxed);
    if (old + v < old)
        bump(&h->sum_hi, 1);
    uint64_t stored = atomic_load_explicit(&h->shift, memory_order_relaxed);
    if (stored == 0) {
        stored = v == UINT64_MAX ? v : v + 1;
        atomic_store_explicit(&h->shift, stored, memory_order_relaxed);
    }
    double p, e;
    square(diff(v, shift_of(stored)), &p, &e);
    add_dd_own(&h->sq_hi, &h->sq_lo, p, e);
}

/* The exact sum, read so that a carry in flight between the two words is not seen half-done. */
static unsigned __int128 sum_of(const struct tp_histo *h)
{
    uint64_t hi, lo;
    for (int tries = 0;; tries++) {
        hi = atomic_load(&h->sum_hi);
        lo = atomic_load(&h->sum_lo);
        if (atomic_load(&h->sum_hi) == hi || tries == 100)
            break;
    }
    return (unsigned __int128)hi << 64 | lo;
}

/* sum - n * shift, i.e. the sum of (v - shift), exactly, as a long double. */
static long double centred_sum(unsigned __int128 sum, uint64_t n, uint64_t shift)
{
    unsigned __int128 ns = (unsigned __int128)n * shift;
    return sum >= ns ? (long double)(sum - ns) : -(long double)(ns - sum);
}

void tp_histo_merge(struct tp_histo *dst, const struct tp_histo *src)
{
    uint64_t n = atomic_load(&src->n);
    if (!n)
        return;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        uint64_t c = atomic_load_explicit(&src->b[i], memory_order_relaxed);
        if (c)
            atomic_fetch_add_explicit(&dst->b[i], c, memory_order_relaxed);
    }
    unsigned __int128 ssum = sum_of(src);
    uint64_t lo = (uint64_t)ssum, hi = (uint64_t)(ssum >> 64);
    uint64_t old = atomic_fetch_add(&dst->sum_lo, lo);
    atomic_fetch_add(&dst->sum_hi, hi + (old + lo < old));

    /* S2 of src is around src's shift; dst's may differ by d: sum of (v - s_src + d)^2 =
     * S2 + 2 d sum(v - s_src) + n d^2. */
    uint64_t sstored = atomic_load(&src->shift), dstored = 0;
    atomic_compare_exchange_strong(&dst->shift, &dstored, sstored);
    if (dstored == 0)
        dstored = sstored;
    double s2hi = bits_to_d(atomic_load(&src->sq_hi)), s2lo = bits_to_d(atomic_load(&src->sq_lo));
    if (dstored == sstored) {
        add_dd(&dst->sq_hi, &dst->sq_lo, s2hi, s2lo);
    } else {
        uint64_t ss = shift_of(sstored), ds = shift_of(dstored);
        long double d = ss >= ds ? (long double)(ss - ds) : -(long double)(ds - ss);
        long double t =
            (long double)s2hi + s2lo + 2 * d * centred_sum(ssum, n, ss) + (long double)n * d * d;
        double thi = (double)t;
        add_dd(&dst->sq_hi, &dst->sq_lo, thi, (double)(t - thi));
    }
    tp_keep_merge(dst->kept, atomic_load(&dst->n), src->kept, n);
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

/* The value of rank r (1-based, in sorted order) from the buckets: the midpoint of the bucket
 * holding it, kept within the exact [min, max]; the extremes themselves are exact. */
static uint64_t value_at_rank(const struct tp_histo *h, uint64_t n, uint64_t r)
{
    uint64_t mn = atomic_load(&h->min), mx = atomic_load(&h->max);
    if (r <= 1)
        return mn;
    if (r >= n)
        return mx;
    uint64_t seen = 0;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        seen += atomic_load_explicit(&h->b[i], memory_order_relaxed);
        if (seen >= r) {
            uint64_t first, last;
            bucket_range(i, &first, &last);
            uint64_t mid = first + (last - first) / 2;
            return mid < mn ? mn : mid > mx ? mx : mid;
        }
    }
    return mx; /* adds still arriving on other threads: n ran ahead of the buckets */
}

/* The first (high: last) value of the bucket holding rank r, within the exact [min, max]. */
static uint64_t edge_at_rank(const struct tp_histo *h, uint64_t n, uint64_t r, int high)
{
    uint64_t mn = atomic_load(&h->min), mx = atomic_load(&h->max), seen = 0;
    if (r <= 1 && !high)
        return mn;
    if (r >= n && high)
        return mx;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        seen += atomic_load_explicit(&h->b[i], memory_order_relaxed);
        if (seen >= r) {
            uint64_t first, last, v;
            bucket_range(i, &first, &last);
            v = high ? last : first;
            return v < mn ? mn : v > mx ? mx : v;
        }
    }
    return mx;
}

/* ceil(x) as a rank within [1, n]. */
static uint64_t rank(double x, uint64_t n)
{
    x = ceil(x);
    if (!(x >= 1))
        return 1;
    if (x >= (double)n)
        return n;
    return (uint64_t)x;
}

/* The kept values, sorted, in pages of their own (a report is written inside hooks, and may be
 * written on several threads at once); k = how many; exact = they are all n values. Nothing
 * (v NULL) past TP_HISTO_KEEP values or when the pages cannot be had. */
struct sorted {
    uint64_t *v;
    size_t k;
    int exact;
};

static struct sorted sorted_samples(const struct tp_histo *h, uint64_t n)
{
    struct sorted s = {0};
    if (n <= TP_HISTO_KEEP)
        s.v = tp_pages_map(TP_HISTO_KEEP * sizeof(uint64_t), 0);
    if (s.v) {
        s.k = tp_keep_sorted(h->kept, n, s.v);
        s.exact = s.k > 0 && s.k == n;
    }
    return s;
}

static void sorted_free(struct sorted *s)
{
    if (s->v)
        tp_pages_unmap(s->v, TP_HISTO_KEEP * sizeof(uint64_t));
}

/* q clamped to [0, 1] (NaN: 0). */
static double unit_q(double q)
{
    return !(q > 0) ? 0 : q > 1 ? 1 : q;
}

/* Quantile q: exact from the samples when they are every value, else from the buckets. */
static uint64_t quantile(const struct tp_histo *h, uint64_t n, const struct sorted *s, double q)
{
    uint64_t r = rank(unit_q(q) * (double)n, n);
    if (s->exact && r > 1 && r < n)
        return s->v[r - 1];
    return value_at_rank(h, n, r);
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
    struct sorted ss = sorted_samples(h, n);
    out->p50 = quantile(h, n, &ss, 0.50);
    out->p95 = quantile(h, n, &ss, 0.95);
    out->p99 = quantile(h, n, &ss, 0.99);
    unsigned __int128 sum = sum_of(h);
    out->mean = (double)((long double)sum / (long double)n);
    if (n > 1) {
        uint64_t s = shift_of(atomic_load(&h->shift));
        long double c = centred_sum(sum, n, s);
        long double s2 =
            (long double)bits_to_d(atomic_load(&h->sq_hi)) + bits_to_d(atomic_load(&h->sq_lo));
        long double var = (s2 - c * c / (long double)n) / (long double)(n - 1);
        out->stddev = var > 0 ? (double)sqrtl(var) : 0;
    }
    /* Distribution-free 95% interval of the median: the order statistics of ranks
     * floor(n/2 - 1.96 sqrt(n)/2) and ceil(1 + n/2 + 1.96 sqrt(n)/2). Exact from the kept
     * values while they are all of them. Past that, from the buckets, each rank's value taken
     * at the far edge of its bucket (the first value of the low one's, the last of the high
     * one's, within [min, max]): an interval that holds the exact one and is at most a bucket
     * (1/64) wider at each end, never of zero width unless the values there are equal, and
     * always around the median shown (its bucket lies between the two). */
    uint64_t lo, hi;
    if (ss.exact) {
        tp_keep_median_ci(ss.v, ss.k, &lo, &hi);
    } else {
        double half = 1.959964 * sqrt((double)n) / 2;
        lo = edge_at_rank(h, n, rank(floor((double)n / 2 - half), n), 0);
        hi = edge_at_rank(h, n, rank((double)n / 2 + half + 1, n), 1);
    }
    out->p50_ci_lo = (double)lo;
    out->p50_ci_hi = (double)hi;
    sorted_free(&ss);
}
