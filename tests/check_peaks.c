/* Machine peaks: environment over cache over quick measurement; the cache round-trips; a corrupt
 * cache is ignored with a warning. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peaks.h"

static char dir[] = "/tmp/tprof-peaks-XXXXXX";

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
}

START_TEST(test_env_wins)
{
    struct tp_machine m = {0};
    ck_assert_int_eq(tp_peaks_resolve(&m, 100, 20, 0), 0);
    ck_assert(m.peak_gflops == 100 && m.peak_gbps == 20);
    ck_assert_str_eq(m.source, "env");
    free(m.source);
}
END_TEST

START_TEST(test_cache_round_trip)
{
    setup();
    char path[1024];
    ck_assert_int_eq(tp_peaks_cache_path(path, sizeof path), 0);
    ck_assert(strncmp(path, dir, strlen(dir)) == 0);
    struct tp_peaks p = {123.5, 61.25, 17.75, "/usr/lib/libblas.so.3", "2026-01-01T00:00:00Z"}, q;
    ck_assert_int_eq(tp_peaks_save(path, &p), 0);
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert(q.gflops == 123.5 && q.gflops_1t == 61.25 && q.gbps == 17.75);
    ck_assert_str_eq(q.blas, p.blas);
    struct tp_machine m = {0};
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 0), 0);
    ck_assert(m.peak_gflops == 123.5 && m.peak_gbps == 17.75);
    ck_assert(strncmp(m.source, "cache:", 6) == 0);
    free(m.source);
    m.source = NULL;
    ck_assert_int_eq(tp_peaks_resolve(&m, 50, 0, 0), 0); /* one from env, one from the cache */
    ck_assert(m.peak_gflops == 50 && m.peak_gbps == 17.75);
    ck_assert(strncmp(m.source, "env+cache:", 10) == 0);
    free(m.source);
}
END_TEST

START_TEST(test_corrupt_cache)
{
    setup();
    char path[1024];
    tp_peaks_cache_path(path, sizeof path);
    struct tp_peaks p = {1, 1, 1, "", ""};
    ck_assert_int_eq(tp_peaks_save(path, &p), 0);
    FILE *f = fopen(path, "w");
    fputs("tprof-peaks 1\npeak_gflops banana\npeak_gbps -3\n", f);
    fclose(f);
    struct tp_peaks q;
    ck_assert_int_eq(tp_peaks_load(path, &q), -1);
    f = fopen(path, "w");
    fputs("\x7f" "ELF garbage", f);
    fclose(f);
    ck_assert_int_eq(tp_peaks_load(path, &q), -1);
    struct tp_machine m = {0};
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 0), -1); /* no quick measurement allowed */
    ck_assert_str_eq(m.source, "none");
    ck_assert(m.peak_gflops == 0 && m.peak_gbps == 0);
    free(m.source);
}
END_TEST

START_TEST(test_quick_is_sane)
{
    setup();
    struct tp_machine m = {0};
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 1), 0);
    ck_assert_str_eq(m.source, "quick");
    ck_assert(m.peak_gflops > 0.1 && m.peak_gflops < 1e5);
    ck_assert(m.peak_gbps > 0.1 && m.peak_gbps < 1e4);
    free(m.source);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("peaks");
    TCase *tc = tcase_create("peaks");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_env_wins);
    tcase_add_test(tc, test_cache_round_trip);
    tcase_add_test(tc, test_corrupt_cache);
    tcase_add_test(tc, test_quick_is_sane);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
