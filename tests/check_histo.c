/* The latency histogram: exact n/min/max/mean/stddev, every quantile within 1% of the exact
 * nearest-rank quantile over the whole uint64 range, the median's confidence interval, exact
 * counts and sums under concurrent adds, merge equal to adding everything. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "common/histo/histo.h"
#include "tests/probe.h"

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least q*n values at or below it. */
static uint64_t exact_q(const uint64_t *sorted, size_t n, double q)
{
    size_t r = (size_t)ceil(q * (double)n);
    if (r < 1)
        r = 1;
    if (r > n)
        r = n;
    return sorted[r - 1];
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double unit(void)
{
    return (double)(next() >> 11) / 9007199254740992.0;
}

static long double exact_mean(const uint64_t *v, size_t n)
{
    unsigned __int128 s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return (long double)s / n;
}

static long double exact_sd(const uint64_t *v, size_t n)
{
    long double m = exact_mean(v, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += ((long double)v[i] - m) * ((long double)v[i] - m);
    return n > 1 ? sqrtl(ss / (n - 1)) : 0;
}

static void check_dist(uint64_t *v, size_t n)
{
    struct tp_histo *h = tp_histo_new();
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < n; i++)
        tp_histo_add(h, v[i]); /* in generation order: the shift is v[0], whatever it is */
    long double mean = exact_mean(v, n), sd = exact_sd(v, n);
    qsort(v, n, sizeof *v, cmp);
    struct tp_latency l;
    tp_histo_summary(h, &l);
    ck_assert_uint_eq(l.n, n);
    ck_assert_uint_eq(tp_histo_count(h), n);
    ck_assert_uint_eq(l.min, v[0]);
    ck_assert_uint_eq(l.max, v[n - 1]);
    ck_assert_msg(l.mean == (double)mean, "mean %.17g want %.17Lg", l.mean, mean);
    ck_assert_msg(fabsl(l.stddev - sd) <= 1e-9L * sd, "sd %.17g want %.17Lg", l.stddev, sd);
    for (int i = 0; i <= 1000; i++) {
        double q = i / 1000.0, want = (double)exact_q(v, n, q);
        double got = (double)tp_histo_quantile(h, q);
        ck_assert_msg(fabs(got - want) <= 0.01 * want, "q=%g: got %.0f want %.0f", q, got, want);
    }
    ck_assert_uint_eq(l.p50, tp_histo_quantile(h, 0.5));
    ck_assert_uint_eq(l.p95, tp_histo_quantile(h, 0.95));
    ck_assert_uint_eq(l.p99, tp_histo_quantile(h, 0.99));
    ck_assert_uint_eq(tp_histo_quantile(h, 0), v[0]);
    ck_assert_uint_eq(tp_histo_quantile(h, 1), v[n - 1]);
    /* The median's interval: order statistics of ranks floor(n/2 - 1.96 sqrt(n)/2) and
     * ceil(1 + n/2 + 1.96 sqrt(n)/2): exact while every value is kept (and so is every
     * quantile); past that, an enclosure at most a bucket (1/64) wider at each end. */
    double half = 1.959964 * sqrt((double)n) / 2, jl = floor(n / 2.0 - half),
           jh = ceil(n / 2.0 + half + 1);
    uint64_t lo = v[jl < 1 ? 0 : (size_t)jl - 1], hi = v[jh > n ? n - 1 : (size_t)jh - 1];
    if (n <= 4096) {
        ck_assert_msg(l.p50_ci_lo == (double)lo, "ci lo %f want %lu", l.p50_ci_lo,
                      (unsigned long)lo);
        ck_assert_msg(l.p50_ci_hi == (double)hi, "ci hi %f want %lu", l.p50_ci_hi,
                      (unsigned long)hi);
        for (int i = 0; i <= 1000; i++)
            ck_assert_uint_eq(tp_histo_quantile(h, i / 1000.0), exact_q(v, n, i / 1000.0));
    } else {
        ck_assert_msg(l.p50_ci_lo <= (double)lo && (double)lo - l.p50_ci_lo <= (double)lo / 64,
                      "ci lo %f want %lu", l.p50_ci_lo, (unsigned long)lo);
        ck_assert_msg(l.p50_ci_hi >= (double)hi && l.p50_ci_hi - (double)hi <= (double)hi / 64,
                      "ci hi %f want %lu", l.p50_ci_hi, (unsigned long)hi);
    }
    ck_assert(l.p50_ci_lo <= (double)l.p50 && (double)l.p50 <= l.p50_ci_hi);
    tp_histo_destroy(h);
}

START_TEST(test_uniform)
{
    enum { N = 100000 };
    uint64_t *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++)
        v[i] = 1000 + next() % 1000000;
    check_dist(v, N);
    free(v);
}
END_TEST

START_TEST(test_lognormal_like)
{
    enum { N = 100000 };
    uint64_t *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++) {
        /* Box-Muller: exp(N(9, 2)) spans tens of ns to seconds. */
        double z = sqrt(-2 * log(1 - unit())) * cos(2 * M_PI * unit());
        v[i] = (uint64_t)exp(9 + 2 * z);
    }
    check_dist(v, N);
    free(v);
}
END_TEST

START_TEST(test_bimodal)
{
    enum { N = 20001 };
    uint64_t *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++)
        v[i] = i % 2 ? next() % 50 : (1ull << 40) + next() % (1ull << 38);
    check_dist(v, N);
    free(v);
}
END_TEST

START_TEST(test_huge_values)
{
    enum { N = 20000 };
    uint64_t *v = malloc(N * sizeof *v);
    /* Near 2^63: the sum overflows 64 bits many times over. */
    for (size_t i = 0; i < N; i++)
        v[i] = (1ull << 63) - (1ull << 61) + next() % (1ull << 62);
    check_dist(v, N);
    /* Up to UINT64_MAX, and the top bucket's last value. */
    for (size_t i = 0; i < N; i++)
        v[i] = i % 7 == 0 ? UINT64_MAX : UINT64_MAX - next() % (1ull << 58);
    check_dist(v, N);
    free(v);
}
END_TEST

START_TEST(test_constant_zero_one)
{
    uint64_t v[1001];
    for (int i = 0; i < 1000; i++)
        v[i] = 777;
    check_dist(v, 1000);
    for (int i = 0; i < 1001; i++)
        v[i] = next() % 2;
    check_dist(v, 1001);
    for (int i = 0; i < 1001; i++)
        v[i] = next() % 64; /* one bucket per value: every rank, the interval's too, is exact */
    check_dist(v, 1001);
    for (int i = 0; i < 64; i++)
        v[i] = (uint64_t)(i * 37 % 64); /* 0..63 shuffled: rank r is value r - 1, exactly */
    check_dist(v, 64);
    for (int i = 0; i < 1000; i++)
        v[i] = 0;
    check_dist(v, 1000);
    v[0] = UINT64_MAX;
    check_dist(v, 1);

    struct tp_histo *h = tp_histo_new();
    struct tp_latency l;
    tp_histo_summary(h, &l);
    ck_assert_uint_eq(l.n, 0);
    ck_assert(l.min == 0 && l.max == 0 && l.mean == 0 && l.stddev == 0);
    ck_assert_uint_eq(tp_histo_quantile(h, 0.5), 0);
    tp_histo_add(h, 0);
    tp_histo_add(h, 1);
    tp_histo_summary(h, &l);
    ck_assert_uint_eq(l.min, 0);
    ck_assert_uint_eq(l.max, 1);
    ck_assert(l.mean == 0.5);
    ck_assert(fabs(l.stddev - sqrt(0.5)) < 1e-15);
    ck_assert_uint_eq(tp_histo_quantile(h, NAN), 0);
    ck_assert_uint_eq(tp_histo_quantile(h, -3), 0);
    ck_assert_uint_eq(tp_histo_quantile(h, 7), 1);
    tp_histo_destroy(h);
}
END_TEST

/* Every power of two, its neighbours and random values across the range: a bucket's estimate is
 * within 1/128 of the value. {0, v, v, UINT64_MAX} keeps min/max from clamping the estimate. */
START_TEST(test_every_range)
{
    struct tp_histo *h = tp_histo_new();
    for (int e = 0; e < 64; e++) {
        uint64_t p = 1ull << e;
        uint64_t cand[] = {p, p - 1, p + 1, p + p / 2, p + (p - 1), p + next() % p};
        for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
            uint64_t v = cand[c];
            if (v == 0 || v == UINT64_MAX)
                continue;
            tp_histo_destroy(h);
            h = tp_histo_new();
            tp_histo_add(h, 0);
            tp_histo_add(h, v);
            tp_histo_add(h, v);
            tp_histo_add(h, UINT64_MAX);
            uint64_t got = tp_histo_quantile(h, 0.5);
            uint64_t err = got > v ? got - v : v - got;
            ck_assert_msg(err <= v / 128 + (v < 64 ? 0 : 1), "v=%llu got %llu",
                          (unsigned long long)v, (unsigned long long)got);
        }
    }
    tp_histo_destroy(h);
}
END_TEST

/* A slow first call far from the rest: the shifted, compensated sum of squares keeps the spread. */
START_TEST(test_outlier_first)
{
    enum { N = 300001 };
    uint64_t *v = malloc(N * sizeof *v);
    v[0] = 4000000000ull; /* 4 s */
    for (size_t i = 1; i < N; i++)
        v[i] = 1000 + i % 3; /* sd ~0.8 ns */
    check_dist(v, N);
    free(v);
}
END_TEST

/* Latencies that all share one or two buckets (bucket width 262,144 ns near 20 ms): the
 * interval is never of zero width. 100 values 20.400-20.499 ms: exact order statistics 40 and
 * 61. 10,001 values 20.4-20.5 ms every 10 ns (shuffled): ranks 4,902 (20,449,010) and 5,100
 * (20,450,990) both lie in the bucket [20,447,232, 20,709,375], so the interval is that
 * bucket's first value to the max. The buckets alone gave 20.5 ms to 20.5 ms for both. */
START_TEST(test_ci_one_bucket)
{
    struct tp_histo *h = tp_histo_new();
    struct tp_latency l;
    for (uint64_t i = 0; i < 100; i++)
        tp_histo_add(h, 20400000 + (i * 37 % 100) * 1000);
    tp_histo_summary(h, &l);
    ck_assert(l.p50_ci_lo == 20439000 && l.p50_ci_hi == 20460000);
    ck_assert_uint_eq(l.p50, 20449000);
    ck_assert_uint_eq(l.p95, 20494000);
    tp_histo_destroy(h);

    h = tp_histo_new();
    for (uint64_t i = 0; i < 10001; i++)
        tp_histo_add(h, 20400000 + (i * 7919 % 10001) * 10);
    tp_histo_summary(h, &l);
    ck_assert_msg(l.p50_ci_lo == 20447232 && l.p50_ci_hi == 20500000, "%f %f", l.p50_ci_lo,
                  l.p50_ci_hi);
    tp_histo_destroy(h);

    /* Seven values, three of them equal around the median: exact, [min, max] below 11. */
    h = tp_histo_new();
    uint64_t seven[] = {300, 100, 200, 200, 200, 900, 5000};
    for (int i = 0; i < 7; i++)
        tp_histo_add(h, seven[i]);
    tp_histo_summary(h, &l);
    ck_assert(l.p50_ci_lo == 100 && l.p50_ci_hi == 5000);
    ck_assert_uint_eq(l.p50, 200);
    tp_histo_destroy(h);
}
END_TEST

/* Merging kept values: while they fit, exactly what adding them one by one keeps. */
START_TEST(test_merge_exact)
{
    struct tp_histo *a = tp_histo_new(), *b = tp_histo_new(), *all = tp_histo_new();
    for (uint64_t i = 0; i < 3000; i++) {
        uint64_t x = 1000000 + next() % 1000;
        tp_histo_add(i < 2000 ? a : b, x);
        tp_histo_add(all, x);
    }
    tp_histo_merge(a, b);
    struct tp_latency la, lall;
    tp_histo_summary(a, &la);
    tp_histo_summary(all, &lall);
    ck_assert(la.p50_ci_lo == lall.p50_ci_lo && la.p50_ci_hi == lall.p50_ci_hi);
    ck_assert(la.p50_ci_lo < la.p50_ci_hi); /* one bucket of 8,192 ns: the buckets gave one value */
    ck_assert_uint_eq(la.p50, lall.p50);
    ck_assert_uint_eq(la.p99, lall.p99);
    tp_histo_destroy(a);
    tp_histo_destroy(b);
    tp_histo_destroy(all);
}
END_TEST

/* A histogram one thread adds to (tp_histo_add_own, the op owner's) gives exactly the figures
 * of the locked adds: an outlier first (the shift), then a spread whose squares' sum needs the
 * low double, past the 4,096 values kept, with the largest value. */
START_TEST(test_add_own_same)
{
    struct tp_histo *a = tp_histo_new(), *b = tp_histo_new();
    for (uint64_t i = 0; i < 9000; i++) {
        uint64_t x = i == 0 ? 5000000000ull : i == 8999 ? UINT64_MAX : 100 + next() % 100000;
        tp_histo_add(a, x);
        tp_histo_add_own(b, x);
        if (i == 10 || i == 4095 || i == 8998) {
            struct tp_latency la, lb;
            tp_histo_summary(a, &la);
            tp_histo_summary(b, &lb);
            ck_assert_uint_eq(la.n, lb.n);
            ck_assert(la.min == lb.min && la.max == lb.max && la.p50 == lb.p50 &&
                      la.p95 == lb.p95 && la.p99 == lb.p99);
            ck_assert(la.mean == lb.mean && la.stddev == lb.stddev);
            ck_assert(la.p50_ci_lo == lb.p50_ci_lo && la.p50_ci_hi == lb.p50_ci_hi);
        }
    }
    ck_assert(memcmp(a, b, tp_histo_bytes()) == 0);
    tp_histo_destroy(a);
    tp_histo_destroy(b);
}
END_TEST

/* The median's interval covers the true median about 95% of the time. */
START_TEST(test_median_ci_coverage)
{
    enum { TRIALS = 400, N = 101 };
    int covered = 0;
    for (int t = 0; t < TRIALS; t++) {
        struct tp_histo *h = tp_histo_new();
        for (int i = 0; i < N; i++)
            tp_histo_add(h, 100000 + (uint64_t)(unit() * 1000000)); /* median 600000 */
        struct tp_latency l;
        tp_histo_summary(h, &l);
        covered += l.p50_ci_lo <= 600000 && 600000 <= l.p50_ci_hi;
        tp_histo_destroy(h);
    }
    ck_assert_msg(covered >= 0.92 * TRIALS && covered <= 0.99 * TRIALS, "coverage %d/%d", covered,
                  TRIALS);
}
END_TEST

static struct tp_histo *shared;
static void *adder(void *arg)
{
    for (uint64_t i = 0; i < 250000; i++)
        tp_histo_add(shared, 100 + (i % 1000) + (uint64_t)(uintptr_t)arg);
    return NULL;
}

START_TEST(test_concurrent)
{
    shared = tp_histo_new();
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, adder, (void *)i), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    ck_assert_uint_eq(tp_histo_count(shared), 1000000);
    struct tp_latency l;
    tp_histo_summary(shared, &l);
    ck_assert_uint_eq(l.min, 100);
    ck_assert_uint_eq(l.max, 1102);
    ck_assert(l.mean == 601.0); /* (599.5 + 1.5), exactly */
    /* Four shifted copies of 0..999: variance = (1000^2 - 1)/12 + var{0,1,2,3} (1.25), n-1. */
    double var = ((1e6 - 1) / 12 + 1.25) * 1e6 / (1e6 - 1);
    ck_assert_msg(fabs(l.stddev - sqrt(var)) < 1e-9 * sqrt(var), "sd %.12f want %.12f", l.stddev,
                  sqrt(var));
    /* Every value 100..1102 is below 64 * 2^5: buckets of width <= 32; p50 of a 4x-uniform. */
    ck_assert(fabs((double)l.p50 - 601) <= 601 * 0.01);
    tp_histo_destroy(shared);
}
END_TEST

static void assert_same(struct tp_histo *a, struct tp_histo *b)
{
    struct tp_latency la, lb;
    tp_histo_summary(a, &la);
    tp_histo_summary(b, &lb);
    ck_assert_uint_eq(la.n, lb.n);
    ck_assert_uint_eq(la.min, lb.min);
    ck_assert_uint_eq(la.max, lb.max);
    ck_assert(la.mean == lb.mean);
    ck_assert_msg(fabs(la.stddev - lb.stddev) <= 1e-12 * lb.stddev, "%.17g %.17g", la.stddev,
                  lb.stddev);
    ck_assert(la.p50_ci_lo == lb.p50_ci_lo && la.p50_ci_hi == lb.p50_ci_hi);
    for (int i = 0; i <= 1000; i++)
        ck_assert_uint_eq(tp_histo_quantile(a, i / 1000.0), tp_histo_quantile(b, i / 1000.0));
}

START_TEST(test_merge)
{
    struct tp_histo *a = tp_histo_new(), *b = tp_histo_new(), *all = tp_histo_new(),
                    *empty = tp_histo_new();
    /* Different first values (shifts) in a, b and all. */
    tp_histo_add(b, 5000000);
    tp_histo_add(all, 5000000);
    for (uint64_t i = 0; i < 50000; i++) {
        uint64_t x = 10 + next() % 100000;
        tp_histo_add(i % 3 ? a : b, x);
        tp_histo_add(all, x);
    }
    tp_histo_merge(empty, a); /* into an empty one: takes a's shift */
    tp_histo_merge(a, b);
    assert_same(a, all);
    tp_histo_merge(empty, b);
    assert_same(empty, all);
    struct tp_histo *none = tp_histo_new();
    tp_histo_merge(a, none); /* merging nothing changes nothing */
    assert_same(a, all);
    tp_histo_destroy(a);
    tp_histo_destroy(b);
    tp_histo_destroy(all);
    tp_histo_destroy(empty);
    tp_histo_destroy(none);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("histo");
    TCase *tc = tcase_create("histo");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_uniform);
    tcase_add_test(tc, test_lognormal_like);
    tcase_add_test(tc, test_bimodal);
    tcase_add_test(tc, test_huge_values);
    tcase_add_test(tc, test_constant_zero_one);
    tcase_add_test(tc, test_every_range);
    tcase_add_test(tc, test_outlier_first);
    tcase_add_test(tc, test_ci_one_bucket);
    tcase_add_test(tc, test_merge_exact);
    tcase_add_test(tc, test_median_ci_coverage);
    tcase_add_test(tc, test_concurrent);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_add_own_same);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
