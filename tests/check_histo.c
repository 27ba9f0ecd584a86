/* The latency histogram: exact n/min/max/mean, every quantile within 1% of the exact one, exact
 * counts under concurrent adds, merge equal to adding everything. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "histo.h"

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t exact_q(uint64_t *v, size_t n, double q)
{
    size_t r = (size_t)ceil(q * (double)n);
    if (r < 1)
        r = 1;
    return v[r - 1];
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check_dist(uint64_t *v, size_t n)
{
    struct tp_histo *h = tp_histo_new();
    long double sum = 0;
    for (size_t i = 0; i < n; i++) {
        tp_histo_add(h, v[i]);
        sum += v[i];
    }
    qsort(v, n, sizeof *v, cmp);
    struct tp_latency l;
    tp_histo_summary(h, &l);
    ck_assert_uint_eq(l.n, n);
    ck_assert_uint_eq(l.min, v[0]);
    ck_assert_uint_eq(l.max, v[n - 1]);
    ck_assert(fabs(l.mean - (double)(sum / n)) <= 1e-9 * (double)(sum / n) + 1e-9);
    static const double qs[] = {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double want = (double)exact_q(v, n, qs[i]), got = (double)tp_histo_quantile(h, qs[i]);
        ck_assert_msg(fabs(got - want) <= 0.01 * want + 0.5, "q=%g: got %.0f want %.0f", qs[i], got, want);
    }
    ck_assert_msg(l.p50_ci_lo <= (double)l.p50 && (double)l.p50 <= l.p50_ci_hi, "ci %f %lu %f", l.p50_ci_lo, (unsigned long)l.p50, l.p50_ci_hi);
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
    for (size_t i = 0; i < N; i++)
        v[i] = (uint64_t)exp(8 + 3 * ((double)(next() % 100000) / 100000 - 0.5) * 4);
    check_dist(v, N);
    free(v);
}
END_TEST

START_TEST(test_bimodal_small_and_huge)
{
    enum { N = 20001 };
    uint64_t *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++)
        v[i] = i % 2 ? next() % 50 : (1ull << 40) + next() % (1ull << 38);
    check_dist(v, N);
    for (size_t i = 0; i < N; i++)
        v[i] = (1ull << 62) + next() % 1000; /* beyond the bucketed range */
    struct tp_histo *h = tp_histo_new();
    for (size_t i = 0; i < N; i++)
        tp_histo_add(h, v[i]);
    qsort(v, N, sizeof *v, cmp);
    ck_assert_uint_eq(tp_histo_quantile(h, 1.0), v[N - 1]);
    ck_assert_uint_eq(tp_histo_quantile(h, 0.0), v[0]);
    tp_histo_destroy(h);
    free(v);
}
END_TEST

START_TEST(test_constant_and_tiny)
{
    uint64_t v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = 777;
    check_dist(v, 1000);
    struct tp_histo *h = tp_histo_new();
    struct tp_latency l;
    tp_histo_summary(h, &l);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_uint_eq(tp_histo_quantile(h, 0.5), 0);
    tp_histo_add(h, 0);
    tp_histo_add(h, 1);
    tp_histo_summary(h, &l);
    ck_assert_uint_eq(l.min, 0);
    ck_assert_uint_eq(l.max, 1);
    ck_assert(fabs(l.mean - 0.5) < 1e-12);
    ck_assert(fabs(l.stddev - sqrt(0.5)) < 1e-12);
    tp_histo_destroy(h);
}
END_TEST

static struct tp_histo *shared;
static void *adder(void *arg)
{
    for (uint64_t i = 0; i < 250000; i++)
        tp_histo_add(shared, 100 + (i % 1000) + (uint64_t)(uintptr_t)arg);
    return NULL;
}

START_TEST(test_concurrent_and_merge)
{
    shared = tp_histo_new();
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, adder, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    ck_assert_uint_eq(tp_histo_count(shared), 1000000);
    struct tp_latency l;
    tp_histo_summary(shared, &l);
    ck_assert_uint_eq(l.min, 100);
    ck_assert_uint_eq(l.max, 1102);
    ck_assert(fabs(l.mean - (599.5 + 1.5)) < 1e-6);

    struct tp_histo *a = tp_histo_new(), *b = tp_histo_new(), *all = tp_histo_new();
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t x = 10 + next() % 100000;
        tp_histo_add(i % 3 ? a : b, x);
        tp_histo_add(all, x);
    }
    tp_histo_merge(a, b);
    struct tp_latency la, lall;
    tp_histo_summary(a, &la);
    tp_histo_summary(all, &lall);
    ck_assert_uint_eq(la.n, lall.n);
    ck_assert_uint_eq(la.p50, lall.p50);
    ck_assert_uint_eq(la.p99, lall.p99);
    ck_assert(fabs(la.mean - lall.mean) < 1e-6 * lall.mean);
    ck_assert(fabs(la.stddev - lall.stddev) < 1e-6 * lall.stddev);
    tp_histo_destroy(a);
    tp_histo_destroy(b);
    tp_histo_destroy(all);
    tp_histo_destroy(shared);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("histo");
    TCase *tc = tcase_create("histo");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_uniform);
    tcase_add_test(tc, test_lognormal_like);
    tcase_add_test(tc, test_bimodal_small_and_huge);
    tcase_add_test(tc, test_constant_and_tiny);
    tcase_add_test(tc, test_concurrent_and_merge);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
