/* Unit test of the JSON's site selection (track/sites/rollup.c, tp_rollup_select): against the plain
 * rule it implements, on sites with many ties and zeros. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "track/sites/sites.h"

enum { K = 5000, N = 37 };

static uint64_t meas(const struct tp_site *s, int w)
{
    return w == 0   ? s->live_at_peak_bytes
           : w == 1 ? s->bytes
           : w == 2 ? s->allocs
                    : s->live_at_exit_bytes;
}

/* The rule: for each measure, the first N sites in the order of that measure, highest first,
 * ties in the given order, sites with 0 of it not taken. */
static void reference(const struct tp_site *all, unsigned char *want)
{
    static size_t order[K];
    for (int w = 0; w < 4; w++) {
        for (size_t i = 0; i < K; i++)
            order[i] = i;
        for (size_t i = 1; i < K; i++) /* insertion sort: stable */
            for (size_t j = i; j > 0 && meas(&all[order[j - 1]], w) < meas(&all[order[j]], w);
                 j--) {
                size_t x = order[j];
                order[j] = order[j - 1];
                order[j - 1] = x;
            }
        for (size_t i = 0; i < N; i++)
            if (meas(&all[order[i]], w) > 0)
                want[order[i]] = 1;
    }
}

START_TEST(test_select)
{
    static struct tp_site all[K];
    static unsigned char want[K];
    uint64_t seed = 7;
    for (size_t i = 0; i < K; i++) {
        uint64_t r[4];
        for (int w = 0; w < 4; w++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            r[w] = (seed >> 33) % 60;
        }
        memset(&all[i], 0, sizeof all[i]);
        all[i].live_at_peak_bytes = r[0] < 50 ? 0 : r[0]; /* mostly 0: fewer than N ranked */
        all[i].bytes = r[1] * 100;
        all[i].allocs = r[2] / 3;
        all[i].live_at_exit_bytes = r[3] == 59 ? 1000 + i : r[3];
        all[i].nframes = i; /* who it is, after the moves */
    }
    reference(all, want);
    size_t nwant = 0;
    for (size_t i = 0; i < K; i++)
        nwant += want[i];
    size_t got = tp_rollup_select(all, K, N);
    ck_assert_uint_eq(got, nwant);
    static unsigned char seen[K];
    for (size_t i = 0; i < K; i++) {
        size_t id = all[i].nframes;
        ck_assert_uint_lt(id, K);
        ck_assert(!seen[id]); /* a permutation */
        seen[id] = 1;
        ck_assert_int_eq(want[id], i < got);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rollup");
    TCase *tc = tcase_create("select");
    tcase_add_test(tc, test_select);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
