/* Unit tests of the frame trees (track/sites/stacktrie.c) and of what the call-site table holds in
 * memory (track/sites/sites.c, track/sites/sitetally.c), linked directly into this program. Addresses are
 * fake (never dereferenced). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "track/heap/heap.h"
#include "track/sites/sites.h"
#include "track/sites/stacktrie.h"

/* bench/big_gen.py's stacks: [h5 h4 h3 h2 h1 g_y f_x main]. */
static void big_stack(uintptr_t *f, int x, int y)
{
    for (int k = 0; k < 5; k++)
        f[k] = 0x1000 + (uintptr_t)k * 16; /* h5 .. h1 */
    f[5] = 0x200000 + (uintptr_t)y * 16;   /* g_y */
    f[6] = 0x400000 + (uintptr_t)x * 16;   /* f_x */
    f[7] = 0x900;                          /* main */
}

/* Each stack reads back as it went in, is the same as itself and as no other given. */
static void check_stack(uint64_t ref, const uintptr_t *f, int n)
{
    uintptr_t back[TP_MAX_STACK];
    ck_assert_uint_ne(ref, 0);
    ck_assert_int_eq(tp_trie_frames(ref), n);
    ck_assert_int_eq(tp_trie_read(ref, back), n);
    ck_assert_mem_eq(back, f, sizeof *f * (size_t)n);
    ck_assert(tp_trie_same(ref, f, n));
    ck_assert(!tp_trie_same(ref, f, n - 1)); /* a prefix */
    uintptr_t g[TP_MAX_STACK];
    for (int i = 0; i < n; i++) {
        memcpy(g, f, sizeof *f * (size_t)n);
        g[i] ^= 0x10;
        ck_assert(!tp_trie_same(ref, g, n));
    }
}

/* A deep shared inner part, a shared outer part, the distinct frames between: the first stack
 * through each g_y and each f_x leaves its frame in both trees (a gap of one frame), and
 * from the second row on a stack costs no node: 4N + 6 nodes for N x N stacks, not 8 a stack. */
START_TEST(test_shared_ends)
{
    enum { N = 30 };
    ck_assert_int_eq(tp_trie_init(100000), 0);
    static uint64_t ref[N][N];
    uintptr_t f[8];
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++) {
            big_stack(f, x, y);
            ref[x][y] = tp_trie_put(f, 8);
        }
    ck_assert_uint_eq(tp_trie_nodes(), 3 + 4 * N + 6);
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++) {
            big_stack(f, x, y);
            check_stack(ref[x][y], f, 8);
            check_stack(tp_trie_put(f, 8), f, 8); /* found again: no new node */
        }
    ck_assert_uint_eq(tp_trie_nodes(), 3 + 4 * N + 6);
    ck_assert_uint_eq(tp_trie_resident(), (3 + 4 * N + 6) * 12 + 1024 * 4);
}
END_TEST

/* Distinct leaves under one shared caller chain: after the first few, two nodes a stack (the
 * leaf in each tree): 2M + 8 for M stacks. */
START_TEST(test_distinct_leaves)
{
    enum { M = 200 };
    ck_assert_int_eq(tp_trie_init(100000), 0);
    static uint64_t ref[M];
    uintptr_t f[M][8];
    for (int i = 0; i < M; i++) {
        f[i][0] = 0x700000 + (uintptr_t)i * 16;
        for (int k = 1; k < 8; k++)
            f[i][k] = 0x5000 + (uintptr_t)k * 16;
        ref[i] = tp_trie_put(f[i], 8);
    }
    ck_assert_uint_eq(tp_trie_nodes(), 3 + 2 * M + 8);
    for (int i = 0; i < M; i++) {
        check_stack(ref[i], f[i], 8);
        for (int j = 0; j < M; j += 17)
            ck_assert_int_eq(tp_trie_same(ref[i], f[j], 8), i == j);
    }
}
END_TEST

/* Stacks of every depth from a small set of frames, so that they share in every way: each reads
 * back as stored, and two stacks are the same exactly when their frames are. */
START_TEST(test_agreement)
{
    enum { K = 3000 };
    ck_assert_int_eq(tp_trie_init(100000), 0);
    static uintptr_t f[K][TP_MAX_STACK];
    static int n[K];
    static uint64_t ref[K];
    uint64_t seed = 12345;
    for (int i = 0; i < K; i++) {
        n[i] = 1 + (int)((seed >> 33) % 12);
        for (int k = 0; k < n[i]; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            f[i][k] = 0x10000 + (uintptr_t)((seed >> 40) % 4) * 16 + (uintptr_t)k * 0x1000;
        }
        ref[i] = tp_trie_put(f[i], n[i]);
    }
    for (int i = 0; i < K; i++) {
        uintptr_t back[TP_MAX_STACK];
        ck_assert_int_eq(tp_trie_read(ref[i], back), n[i]);
        ck_assert_mem_eq(back, f[i], sizeof(uintptr_t) * (size_t)n[i]);
        for (int j = 0; j < K; j += 7) {
            int same = n[i] == n[j] && !memcmp(f[i], f[j], sizeof(uintptr_t) * (size_t)n[i]);
            ck_assert_int_eq(tp_trie_same(ref[i], f[j], n[j]), same);
        }
    }
}
END_TEST

/* Out of nodes: no stack, and the trees say so. */
START_TEST(test_out_of_nodes)
{
    ck_assert_int_eq(tp_trie_init(3 + 8), 0);
    uintptr_t f[8];
    big_stack(f, 0, 0);
    ck_assert_uint_ne(tp_trie_put(f, 8), 0);
    ck_assert(!tp_trie_full());
    big_stack(f, 1, 1);
    ck_assert_uint_eq(tp_trie_put(f, 8), 0);
    ck_assert(tp_trie_full());
}
END_TEST

/* The table's bytes, part by part, for 100 x 100 such stacks found through the allocation path:
 * each part as it must be, and their sum what the budget is checked against. */
START_TEST(test_bytes)
{
    enum { N = 100 };
    tp_heap_init(NULL, NULL);
    tp_sites_init(8, 0, 0, NULL);
    uintptr_t f[8];
    void *raw[8];
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++) {
            big_stack(f, x, y);
            for (int k = 0; k < 8; k++)
                raw[k] = (void *)f[k];
            tp_heap_alloc((void *)(0x10000000 + (uintptr_t)(x * N + y) * 16), 16, NULL, raw, 8);
        }
    struct tp_sites_bytes b;
    tp_sites_bytes(&b);
    uint32_t sites = N * N + 1; /* and the overflow site */
    ck_assert_uint_eq(b.sites, sites);
    ck_assert_uint_eq(b.records, 32ull * sites);
    ck_assert_uint_eq(b.stacks, 8ull * sites);
    ck_assert_uint_eq(b.hashes, 2ull * sites);
    ck_assert_uint_eq(b.nodes, 3 + 4 * N + 6);
    ck_assert_uint_eq(b.trie, (3 + 4 * N + 6) * 12ull + 1024 * 4);
    /* 16,384 slots now; the 4,096 and 8,192 before them keep their first page */
    ck_assert_uint_eq(b.index, 32 + 4 * 16384 + 2 * 4096);
    /* this thread's block: its header page and the pages of its 12-byte rows */
    ck_assert_uint_eq(b.tally, 4096 + (12ull * sites + 4095) / 4096 * 4096);
    struct tp_sites_state st;
    tp_sites_state(&st);
    ck_assert_uint_eq(st.resident, b.records + b.stacks + b.hashes + b.index + b.trie + b.tally);
    ck_assert_uint_eq(st.index_slots, 16384);
}
END_TEST

/* The same stacks under half the budget they all took: the table stops short, the limit says
 * why, every allocation it could not place is in the overflow site, and what it holds passes the
 * budget by less than one step of the limit (a sixteenth of the index's slots) times what a site
 * costs here (record, stack, hash, row). */
START_TEST(test_budget_stop)
{
    enum { N = 100 };
    uint64_t whole = 0;
    for (int pass = 0; pass < 2; pass++) {
        tp_heap_init(NULL, NULL);
        tp_sites_init(8, 0, pass ? whole / 2 : 0, NULL);
        uintptr_t f[8];
        void *raw[8];
        for (int x = 0; x < N; x++)
            for (int y = 0; y < N; y++) {
                big_stack(f, x, y);
                for (int k = 0; k < 8; k++)
                    raw[k] = (void *)f[k];
                tp_heap_alloc((void *)(0x10000000 + (uintptr_t)(x * N + y) * 16), 16, NULL, raw, 8);
            }
        struct tp_sites_state st;
        tp_sites_state(&st);
        if (!pass) {
            ck_assert_int_eq(st.limit, TP_SITES_GROWING);
            whole = st.resident;
            continue;
        }
        ck_assert_int_eq(st.limit, TP_SITES_BUDGET);
        ck_assert_uint_eq(st.budget, whole / 2);
        ck_assert_uint_lt(tp_sites_count(), N * N + 1);
        ck_assert_uint_eq(tp_sites_dropped(), (uint64_t)(N * N + 1 - tp_sites_count()));
        struct tp_site_sum o;
        tp_site_get(0, &o);
        ck_assert_uint_eq(o.allocs, tp_sites_dropped());
        ck_assert_uint_lt(st.resident, st.budget + st.index_slots / 16 * (32 + 8 + 2 + 12) + 4096);
    }
}
END_TEST

/* A thread's 12-byte row wraps past 2^32 into the shared rows: the sums stay exact. */
START_TEST(test_tally_carry)
{
    tp_heap_init(NULL, NULL);
    tp_sites_init(1, 16, 0, NULL);
    void *ra = (void *)0x7770;
    tp_heap_alloc((void *)0x100000, 3ull << 30, ra, NULL, 0);
    tp_heap_alloc((void *)0x100010, 3ull << 30, ra, NULL, 0);
    tp_heap_alloc((void *)0x100020, 5ull << 32, ra, NULL, 0);
    uint32_t id = 1;
    struct tp_site_sum s;
    tp_site_get(id, &s);
    ck_assert_uint_eq(s.allocs, 3);
    ck_assert_uint_eq(s.bytes, (6ull << 30) + (5ull << 32));
    ck_assert_ptr_nonnull(tp_tally_mine);
    atomic_store(&tp_tally_mine[id].allocs, UINT32_MAX); /* as if 2^32 - 1 calls */
    atomic_store(&tp_tally_mine[id].frees, UINT32_MAX);
    tp_heap_alloc((void *)0x100030, 8, ra, NULL, 0);
    tp_heap_free((void *)0x100000);
    tp_site_get(id, &s);
    ck_assert_uint_eq(s.allocs, 1ull << 32);
    ck_assert_uint_eq(s.frees, 1ull << 32);
    ck_assert_uint_eq(s.bytes, (6ull << 30) + (5ull << 32) + 8);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stacktrie");
    TCase *tc = tcase_create("trees");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_shared_ends);
    tcase_add_test(tc, test_distinct_leaves);
    tcase_add_test(tc, test_agreement);
    tcase_add_test(tc, test_out_of_nodes);
    tcase_add_test(tc, test_bytes);
    tcase_add_test(tc, test_budget_stop);
    tcase_add_test(tc, test_tally_carry);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
