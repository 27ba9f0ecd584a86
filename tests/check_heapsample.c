/* The sampled heap mode's arithmetic (track/heapsample.c): the weights against libm's, the rate
 * of samples the countdown gives, and a site's estimate within its stated error. Fixed seeds:
 * the same outcome on every run. */
#include <dlfcn.h>
#include <check.h>
#include <math.h>
#include <stdint.h>

#include <malloc.h>
#include <stdlib.h>

#include "track/heap_fast.h"
#include "track/heap_state.h"
#include "track/heapsample.h"

#define MEAN 65536

START_TEST(test_weights)
{
    tp_hs_init(MEAN, 1);
    const uint64_t sizes[] = {1, 8, 100, 1000, 40000, MEAN, 200000, 1u << 20, 1ull << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double n = (double)sizes[i], want = n / -expm1(-n / MEAN);
        double got = (double)tp_hs_weight_bytes(sizes[i]);
        ck_assert_msg(fabs(got - want) <= 0.5 + 1e-9 * want, "n %.0f: %.3f, libm %.3f", n, got,
                      want);
    }
    ck_assert_uint_eq(tp_hs_weight_bytes(0), 0);
}
END_TEST

/* 10^6 allocations of 100 bytes: each is sampled with p = 1 - e^(-100/65536), so 1,524.7 samples
 * are expected, with a standard deviation of 39; the seed's count is within 4 of them. */
START_TEST(test_rate)
{
    tp_hs_init(MEAN, 1);
    int k = 0;
    for (int i = 0; i < 1000000; i++)
        k += tp_hs_take(100);
    double p = -expm1(-100.0 / MEAN);
    ck_assert_msg(fabs(k - 1e6 * p) < 4 * sqrt(1e6 * p * (1 - p)), "%d samples", k);
}
END_TEST

/* A site of 300,000 blocks of 40 bytes and 100 of 1 MiB: its estimated allocations and bytes
 * within the error it states, for each of 20 seeds but at most 2. */
START_TEST(test_site_estimate)
{
    int misses = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        tp_hs_init(MEAN, seed * 7919);
        uint32_t site = (uint32_t)seed;
        double bytes = 0;
        for (int i = 0; i < 300100; i++) {
            uint64_t n = i < 300000 ? 40 : 1u << 20;
            if (tp_hs_take(n)) {
                tp_hs_site_alloc(site, n);
                bytes += (double)tp_hs_weight_bytes(n);
            }
        }
        struct tp_hs_site h;
        ck_assert(tp_hs_site_get(site, &h));
        double truth = 300000.0 * 40 + 100.0 * (1 << 20);
        double err = tp_hs_error_pct(bytes, h.var_bytes) / 100;
        misses += fabs(bytes - truth) > err * truth;
        ck_assert_msg(h.live == h.samples, "no frees yet");
    }
    ck_assert_msg(misses <= 2, "%d of 20 seeds outside the stated error", misses);
}
END_TEST

/* The sampled fast path's size of a block, from glibc's chunk header, is malloc_usable_size's for
 * every kind of block (small, tcache-sized, large, of its own mapping, aligned, zeroed, grown by
 * realloc); and the setup finds this test's allocator, glibc's, and opens that path. */
START_TEST(test_chunk_size)
{
    tp_raw_resolve();
    tp_heap_hs_setup();
    /* In the sanitizer build malloc is ASan's: the header must not be trusted, and is not. */
    if (dlsym(RTLD_DEFAULT, "__asan_init")) {
        ck_assert_int_eq(tp_hs_glibc, 0);
        return;
    }
    ck_assert_int_eq(tp_hs_glibc, 1);
    ck_assert_int_eq(tp_hs_fast, 1);
    for (size_t n = 0; n < 300000; n = n < 200 ? n + 1 : n * 5 / 4) {
        void *p = malloc(n), *q = calloc(1, n + 1), *r = NULL;
        ck_assert_int_eq(posix_memalign(&r, 256, n + 3), 0);
        void *v[] = {p, q, r};
        for (int k = 0; k < 3; k++)
            ck_assert_msg(tp_hs_chunk_usable(v[k]) == malloc_usable_size(v[k]), "n %zu kind %d", n,
                          k);
        p = realloc(p, 2 * n + 1);
        ck_assert_uint_eq(tp_hs_chunk_usable(p), malloc_usable_size(p));
        free(p), free(q), free(r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heapsample");
    TCase *tc = tcase_create("estimates");
    tcase_add_test(tc, test_weights);
    tcase_add_test(tc, test_rate);
    tcase_add_test(tc, test_site_estimate);
    tcase_add_test(tc, test_chunk_size);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* the countdown is this thread's */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
