/* The sampled heap mode: the countdown, the weights, the per-thread exact counts and the per-site
 * sums of the estimates (heapsample.h says why they are what they are). */
#include "track/heapsample.h"

#include <math.h> /* sqrt: an instruction with -fno-math-errno */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/pages.h"
#include "track/sites.h"

uint64_t tp_hs_mean;
static uint64_t hs_seed;
static _Atomic uint64_t thread_order;
TP_TLS struct tp_hs_thread tp_hs_th;
static TP_TLS uint64_t rng; /* 0: not seeded yet */
static TP_TLS int rng_set;

/* libtprof.so links no libm (Makefile.am): the two functions the weights need, to double
 * precision on the ranges used, as polynomials evaluated by Horner's rule with constant
 * coefficients: a sampled block asks for its weight several times, and a loop with a division per
 * term cost some 300 instructions per sampled pair of a churn of large blocks (bench/RESULTS.md). */
static double hs_exp(double x) /* x <= 0 */
{
    if (x < -700)
        return 0;
    /* x = k ln2 + r, |r| <= ln2 / 2; e^r to 14 terms: the next is under 5e-18 of it */
    double k = (double)(int64_t)(x / 0.69314718055994530942 - 0.5); /* rounded: x < 0 */
    double r = x - k * 0.69314718055994530942;
    static const double c[14] = {1.,
                                 1.,
                                 1. / 2,
                                 1. / 6,
                                 1. / 24,
                                 1. / 120,
                                 1. / 720,
                                 1. / 5040,
                                 1. / 40320,
                                 1. / 362880,
                                 1. / 3628800,
                                 1. / 39916800,
                                 1. / 479001600,
                                 1. / 6227020800.};
    double sum = c[13];
#pragma GCC unroll 13
    for (int i = 12; i >= 0; i--)
        sum = sum * r + c[i];
    union {
        double d;
        uint64_t u;
    } s = {.u = (uint64_t)(1023 + (int64_t)k) << 52};
    return sum * s.d;
}

static double hs_log(double x) /* x > 0 */
{
    union {
        double d;
        uint64_t u;
    } v = {x};
    int e = (int)((v.u >> 52) & 0x7ff) - 1023;
    v.u = (v.u & ((1ull << 52) - 1)) | (1023ull << 52); /* m in [1, 2) */
    double m = v.d;
    if (m > 1.41421356237309504880) {
        m /= 2;
        e++;
    }
    /* ln m = 2 atanh(z) = 2 (z + z^3/3 + z^5/5 + ...), z = (m - 1) / (m + 1), |z| < 0.172: to
     * z^23, the next term under 1e-19 of the sum */
    double z = (m - 1) / (m + 1), z2 = z * z, sum = 1. / 23;
#pragma GCC unroll 11
    for (int i = 21; i >= 1; i -= 2)
        sum = sum * z2 + 1. / i;
    return 2 * z * sum + e * 0.69314718055994530942;
}

/* p(n) = 1 - e^(-n/mean), without the loss of 1 - (1 - tiny). A sampled block asks three times
 * at its allocation (its weight, its site's sums, its time) and three at its free: the last
 * answer is kept, per thread. */
static TP_TLS uint64_t memo_n, memo_mean;
static TP_TLS double memo_p;
static double hs_prob(uint64_t n)
{
    if (n == memo_n && tp_hs_mean == memo_mean)
        return memo_p;
    double x = (double)n / (double)tp_hs_mean, p;
    if (x < 1e-3)
        p = x * (1 - x / 2 * (1 - x / 3 * (1 - x / 4)));
    else
        p = 1 - hs_exp(-x);
    memo_n = n, memo_mean = tp_hs_mean, memo_p = p;
    return p;
}

uint64_t tp_hs_weight_bytes(uint64_t n)
{
    return n ? (uint64_t)((double)n / hs_prob(n) + 0.5) : 0;
}

uint64_t tp_hs_weigh(uint64_t x, uint64_t n)
{
    return n ? (uint64_t)((double)x / hs_prob(n) + 0.5) : x;
}

/* splitmix64: one multiply-xorshift step per draw, and any seed is a good one. */
static uint64_t hs_next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The bytes to the next sample: exponential, mean tp_hs_mean, at least 1. */
static int64_t hs_draw(void)
{
    double u = (double)((hs_next() >> 11) + 1) / 9007199254740992.0; /* (0, 1] */
    double d = -hs_log(u) * (double)tp_hs_mean;
    if (d < 1)
        return 1;
    return d > 4e18 ? (int64_t)4e18 : (int64_t)d;
}

/* A thread's row is given back when it exits: a key of its own, set when the thread takes a row,
 * so that a thread that only frees gives its row back too. */
static pthread_key_t row_key;
static int have_row_key;
static void row_exit(void *arg)
{
    (void)arg;
    tp_hs_thread_exit();
}

void tp_hs_init(uint64_t mean, uint64_t seed)
{
    if (mean && !have_row_key)
        have_row_key = pthread_key_create(&row_key, row_exit) == 0;
    tp_hs_mean = mean;
    hs_seed = seed ? seed : (tp_now_ns() ^ ((uint64_t)getpid() << 32));
    rng_set = 0; /* the calling thread draws from the new seed */
    tp_hs_left = 0;
}

int tp_hs_want;
void tp_hs_steer_walk(void)
{
    if (!tp_hs_mean)
        return;
    tp_hs_want = tp_sites_want_n;
    tp_sites_want_n = -1;
}

uint64_t tp_hs_seed(void)
{
    return hs_seed;
}

/* The countdown crossed zero, or the thread's first allocation found it unset. */
int tp_hs_cross(size_t n)
{
    if (tp_unlikely(!rng_set)) {
        /* threads are numbered in the order of their first allocation: one thread's run is
         * the same for a seed */
        uint64_t k = atomic_fetch_add(&thread_order, 1);
        rng = hs_seed ^ (k * 0xD1B54A32D192ED03ull);
        rng_set = 1;
        tp_hs_left = hs_draw() - (int64_t)n;
        if (tp_hs_left > 0)
            return 0;
    }
    tp_hs_left = hs_draw();
    return 1;
}

/* ---- the filter of sampled addresses ---- */

_Atomic uint16_t tp_hs_filter[1u << TP_HS_FILTER_BITS];

/* The insert is made before the program has the block, the free looks after it has: the count
 * is seen raised by any thread the program hands the block to. */
void tp_hs_filter_add(const void *p)
{
    _Atomic uint16_t *c = tp_hs_slot(p);
    uint16_t v = atomic_load(c);
    while (v != UINT16_MAX && !atomic_compare_exchange_weak(c, &v, (uint16_t)(v + 1)))
        ;
}

void tp_hs_filter_del(const void *p)
{
    _Atomic uint16_t *c = tp_hs_slot(p);
    uint16_t v = atomic_load(c);
    while (v != UINT16_MAX && v != 0 && !atomic_compare_exchange_weak(c, &v, (uint16_t)(v - 1)))
        ;
}

/* ---- exact counts per thread ---- */

#define NROWS 1024
static struct tp_hs_row *rows; /* NROWS of them, mapped at the first new thread */
struct tp_hs_row tp_hs_shared;
static _Atomic int rows_mapped;

/* 1 once this thread looked for a row and found none, or gave its row back: it stays on the
 * shared row without looking again. */
static TP_TLS int row_done;

struct tp_hs_row *tp_hs_row_slow(void)
{
    if (row_done)
        return &tp_hs_shared;
    row_done = 1;
    if (!atomic_load(&rows_mapped)) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&rows_mapped, &expect, 1)) {
            rows = tp_pages_map(NROWS * sizeof *rows, 0);
            atomic_store(&rows_mapped, rows ? 2 : 3);
        }
    }
    while (atomic_load(&rows_mapped) == 1)
        ; /* another thread maps them: a system call's time */
    for (int i = 0; rows && i < NROWS; i++) {
        int free_row = 0;
        if (atomic_compare_exchange_strong(&rows[i].owned, &free_row, 1)) {
            if (have_row_key)
                pthread_setspecific(row_key, (void *)1);
            return tp_hs_me = &rows[i];
        }
    }
    return &tp_hs_shared;
}

void tp_hs_thread_exit(void)
{
    struct tp_hs_row *r = tp_hs_me;
    tp_hs_me = NULL;
    row_done = 1;
    if (r)
        atomic_store(&r->owned, 0);
}

static void row_add(struct tp_hs_totals *t, const struct tp_hs_row *r)
{
    t->allocs += atomic_load_explicit(&r->allocs, memory_order_relaxed);
    t->frees += atomic_load_explicit(&r->frees, memory_order_relaxed);
    t->bytes += atomic_load_explicit(&r->bytes, memory_order_relaxed);
}

/* ---- the per-site sums ---- */

/* Chunks of sites, mapped when a site of theirs is first sampled: sampled allocations are rare,
 * so the doubles are added with a compare-and-swap and nothing waits on a lock. */
#define CHUNK_SITES 1024
#define NCHUNKS     8192 /* 2^23 sites, what the live-block table can name */
struct hs_rec {
    _Atomic uint64_t allocs, frees, var, live_var; /* doubles' bits */
    _Atomic uint64_t samples, live;
};
static struct hs_rec *_Atomic chunks[NCHUNKS];
static _Atomic uint64_t total_samples;

static struct hs_rec *hs_rec(uint32_t site, int make)
{
    if (site / CHUNK_SITES >= NCHUNKS)
        return NULL;
    struct hs_rec *c = atomic_load(&chunks[site / CHUNK_SITES]);
    if (!c && make) {
        struct hs_rec *m = tp_pages_map(CHUNK_SITES * sizeof *m, 0);
        if (!m)
            return NULL;
        if (atomic_compare_exchange_strong(&chunks[site / CHUNK_SITES], &c, m))
            c = m;
        else
            tp_pages_unmap(m, CHUNK_SITES * sizeof *m); /* c: the winner's */
    }
    return c ? &c[site % CHUNK_SITES] : NULL;
}

static void dbl_add(_Atomic uint64_t *a, double v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed), next;
    do {
        double d;
        memcpy(&d, &cur, sizeof d);
        d += v;
        memcpy(&next, &d, sizeof next);
    } while (!atomic_compare_exchange_weak_explicit(a, &cur, next, memory_order_relaxed,
                                                    memory_order_relaxed));
}

static double dbl_get(const _Atomic uint64_t *a)
{
    uint64_t u = atomic_load_explicit(a, memory_order_relaxed);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* A sample of n bytes adds 1/p allocations, and n^2 (1 - p) / p^2 to the variance of the bytes. */
void tp_hs_site_alloc(uint32_t site, uint64_t n)
{
    atomic_fetch_add_explicit(&total_samples, 1, memory_order_relaxed);
    struct hs_rec *r = hs_rec(site, 1);
    if (!r)
        return;
    double p = n ? hs_prob(n) : 1, w = (double)n / p;
    dbl_add(&r->allocs, 1 / p);
    dbl_add(&r->var, w * w * (1 - p));
    dbl_add(&r->live_var, w * w * (1 - p));
    atomic_fetch_add_explicit(&r->samples, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->live, 1, memory_order_relaxed);
}

void tp_hs_site_free(uint32_t site, uint64_t n)
{
    struct hs_rec *r = hs_rec(site, 0);
    if (!r)
        return;
    double p = n ? hs_prob(n) : 1, w = (double)n / p;
    dbl_add(&r->frees, 1 / p);
    dbl_add(&r->live_var, -(w * w * (1 - p)));
    atomic_fetch_sub_explicit(&r->live, 1, memory_order_relaxed);
}

int tp_hs_site_get(uint32_t id, struct tp_hs_site *out)
{
    memset(out, 0, sizeof *out);
    struct hs_rec *r = hs_rec(id, 0);
    if (!r || !atomic_load(&r->samples))
        return 0;
    out->allocs = dbl_get(&r->allocs);
    out->frees = dbl_get(&r->frees);
    out->var_bytes = dbl_get(&r->var);
    out->samples = atomic_load(&r->samples);
    out->live = atomic_load(&r->live);
    out->live_var = out->live ? dbl_get(&r->live_var) : 0;
    if (out->live_var < 0) /* rounding of a sum that came back to 0 */
        out->live_var = 0;
    return 1;
}

double tp_hs_error_pct(double estimate, double var)
{
    if (estimate <= 0)
        return 0;
    return 100 * 1.96 * sqrt(var > 0 ? var : 0) / estimate;
}

void tp_hs_totals(struct tp_hs_totals *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; rows && i < NROWS; i++)
        row_add(t, &rows[i]);
    row_add(t, &tp_hs_shared);
    t->samples = atomic_load(&total_samples);
}

/* In the child after fork: counts restart at 0 (the parent's threads are gone; this one keeps its
 * row), the per-site sums stay, like the sites' own live figures (heap.c). */
void tp_hs_fork_child(void)
{
    for (int i = 0; rows && i < NROWS; i++) {
        atomic_store(&rows[i].allocs, 0);
        atomic_store(&rows[i].frees, 0);
        atomic_store(&rows[i].bytes, 0);
        if (&rows[i] != tp_hs_me)
            atomic_store(&rows[i].owned, 0);
    }
    atomic_store(&tp_hs_shared.allocs, 0);
    atomic_store(&tp_hs_shared.frees, 0);
    atomic_store(&tp_hs_shared.bytes, 0);
    atomic_store(&total_samples, 0);
}
