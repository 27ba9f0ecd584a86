/* Unit tests of the library's tables (track/heap/heap.c, track/heap/livetable.c, track/sites/sites.c), linked
 * directly into this program — not preloaded: they need nothing from the rest of the library but
 * common/. Addresses are fake (never dereferenced). */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "track/heap/heap.h"
#include "track/runtime.h"
#include "track/sites/sites.h"

static void setup_tables(int max_sites)
{
    tp_heap_init(NULL, NULL);
    /* stack 1: the "return address" we pass is the whole call site */
    tp_sites_init(1, (uint64_t)max_sites, 0, NULL);
}

/* A site's figures, summed, in one of a few buffers (a test compares up to three at once). */
static struct tp_site_sum *site_sum(uint32_t id)
{
    static struct tp_site_sum ring[8];
    static unsigned next;
    struct tp_site_sum *o = &ring[next++ % 8];
    tp_site_get(id, o);
    return o;
}

/* Site ids by their fake return address. */
static struct tp_site_sum *site_of(uintptr_t ra)
{
    for (uint32_t i = 1; i < tp_sites_count(); i++) {
        uint32_t n;
        const uintptr_t *f = tp_site_frames(i, &n);
        if (n == 1 && f[0] == ra)
            return site_sum(i);
    }
    return NULL;
}

#define P(i)   ((void *)(uintptr_t)(0x100000 + (uintptr_t)(i)*16))
#define SITE_A ((void *)0xa0)
#define SITE_B ((void *)0xb0)
#define SITE_C ((void *)0xc0)

START_TEST(test_peak_and_live_at_peak)
{
    struct tp_heap_totals t;
    setup_tables(1024);
    /* The sequence of tests/victims/v_sites.c. */
    tp_heap_alloc(P(1), 1000, SITE_A, NULL, 0);
    tp_heap_alloc(P(2), 1000, SITE_A, NULL, 0);
    tp_heap_alloc(P(3), 1000, SITE_A, NULL, 0);
    tp_heap_alloc(P(4), 5000, SITE_B, NULL, 0);
    tp_heap_alloc(P(5), 5000, SITE_B, NULL, 0);
    tp_heap_free(P(4));
    tp_heap_alloc(P(6), 4000, SITE_C, NULL, 0);
    tp_heap_free(P(6));
    tp_heap_alloc(P(7), 6000, SITE_C, NULL, 0); /* the peak: 14000 */
    tp_heap_free(P(7));
    tp_heap_free(P(1));
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.peak, 14000);
    ck_assert_uint_eq(t.live, 7000);
    struct tp_site_sum *a = site_of(0xa0), *b = site_of(0xb0), *c = site_of(0xc0);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->allocs, 3);
    ck_assert_uint_eq(a->frees, 1);
    ck_assert_uint_eq(a->peak_live, 3000);
    ck_assert_uint_eq(a->live, 2000);
    /* a was modified after the peak: it saved its value then */
    ck_assert_uint_eq(a->seen_pseq, t.pseq);
    ck_assert_uint_eq(a->at_peak, 3000);
    /* b was untouched since an earlier peak: its live bytes now are its bytes at the peak */
    ck_assert(b->seen_pseq != t.pseq);
    ck_assert_uint_eq(b->live, 5000);
    ck_assert_uint_eq(b->peak_live, 10000);
    ck_assert_uint_eq(c->at_peak, 6000);
    ck_assert_uint_eq(c->live, 0);
    ck_assert_uint_eq(c->allocs, 2);
    /* unknown frees are counted, not crashed on */
    tp_heap_free(P(999));
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.unknown_frees, 1);
}
END_TEST

/* Of the peak, what is freed before its unit (step) ends is transient, exactly: not what was
 * allocated after the peak, not what is freed after the unit ended, nothing until the unit ends;
 * a new peak starts again. */
START_TEST(test_lifetime_split)
{
    struct tp_heap_totals t;
    setup_tables(1024);
    tp_heap_alloc(P(1), 1000, SITE_A, NULL, 0); /* before the first unit: belongs to it */
    tp_heap_alloc(P(2), 200, SITE_A, NULL, 0);  /* live all run */
    tp_heap_alloc(P(3), 300, SITE_B, NULL, 0);
    tp_heap_alloc(P(4), 400, SITE_B, NULL, 0); /* the peak: 1900 */
    tp_heap_free(P(4));
    tp_heap_alloc(P(5), 100, SITE_C, NULL, 0); /* after the peak: its free is not the peak's */
    tp_heap_free(P(5));
    tp_heap_free(P(3));
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.peak, 1900);
    ck_assert_uint_eq(t.transient_at_peak, 0); /* the unit has not ended */
    tp_heap_unit_end();
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.transient_at_peak, 700);
    tp_heap_alloc(P(6), 300, SITE_C, NULL, 0);
    tp_heap_free(P(6));
    tp_heap_unit_end();
    tp_heap_free(P(2)); /* outlived its unit: still persistent */
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.transient_at_peak, 700);
    /* A higher peak, made of a block freed within its unit. */
    tp_heap_alloc(P(7), 2000, SITE_A, NULL, 0); /* 3000 */
    tp_heap_free(P(7));
    tp_heap_unit_end();
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.peak, 3000);
    ck_assert_uint_eq(t.transient_at_peak, 2000);
    /* The peak moves twice in one unit: the first peak's frees no longer count. */
    tp_heap_alloc(P(8), 2500, SITE_A, NULL, 0); /* 3500 */
    tp_heap_free(P(8));
    tp_heap_alloc(P(9), 3000, SITE_A, NULL, 0); /* 4000 */
    tp_heap_unit_end();
    tp_heap_free(P(9));
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.peak, 4000);
    ck_assert_uint_eq(t.transient_at_peak, 0);
}
END_TEST

/* An insert that probed past a slot being vacated finds it empty when it settles (the race of
 * tests/load_mixed.sh, forced here): the block moves there over a slot still taken, and must leave
 * no copy behind. A copy left behind was taken out by the free of the next block at that address,
 * which charged the old block's size and site and left the new block's record live at exit. */
START_TEST(test_settle_leaves_one_copy)
{
    setup_tables(1024);
    struct tp_live_gen *G = &tp_live_gens[atomic_load(&tp_live_ngens) - 1];
    uintptr_t a0 = 0x40000000, a1 = a0 + 16, p = 0; /* a1's home is right of a0's */
    uint64_t h = live_hash(a0, G);
    for (uintptr_t c = a0 + 1024; !p && c < a0 + (1024u << 16); c += 1024)
        if (live_hash(c, G) == h)
            p = c; /* another span, the same home */
    ck_assert_uint_ne(p, 0);
    struct tp_blk b0 = {100, 1, 0}, b1 = {200, 2, 0}, bp = {300, 3, 0};
    ck_assert_int_eq(tp_live_insert((void *)a0, b0), 0);
    ck_assert_int_eq(tp_live_insert((void *)a1, b1), 0);
    ck_assert_int_eq(tp_live_insert((void *)p, bp), 0); /* probes past both: distance 2 */
    uintptr_t at2 = atomic_load(&G->slots[live_at(G, h + 2)].key);
    ck_assert_uint_eq(at2, p);
    /* a0 freed while p's insert was between its claim and its settling: its vacate read the
     * slot right of it before a1 was there, and left its own slot empty */
    ck_assert_uint_eq(tp_live_remove((void *)a0).site, 1);
    atomic_store(&G->slots[h].key, TP_LIVE_EMPTY);
    tp_live_settle(atomic_load(&tp_live_ngens) - 1, h, 2, p, live_pack(bp));
    uintptr_t at0 = atomic_load(&G->slots[h].key);
    at2 = atomic_load(&G->slots[live_at(G, h + 2)].key);
    ck_assert_uint_eq(at0, p);
    ck_assert_uint_ne(at2, p); /* vacated: a tombstone or empty */
    struct tp_blk got = tp_live_remove((void *)p);
    ck_assert_uint_eq(got.site, 3);
    ck_assert_uint_eq(got.size, 300);
    ck_assert_uint_eq(tp_live_remove((void *)p).site, TP_LIVE_NONE); /* no second copy */
    ck_assert_uint_eq(tp_live_remove((void *)a1).site, 2);
}
END_TEST

START_TEST(test_growth_and_reuse)
{
    struct tp_heap_totals t;
    setup_tables(1024);
    enum { N = 300000 }; /* 15 generations (4,096 slots growing by a quarter) */
    for (int i = 0; i < N; i++)
        tp_heap_alloc(P(i), (size_t)(i % 100) + 1, SITE_A, NULL, 0);
    tp_heap_totals(&t);
    uint64_t want = 0;
    for (int i = 0; i < N; i++)
        want += (uint64_t)(i % 100) + 1;
    ck_assert_uint_eq(t.live, want);
    ck_assert_uint_eq(t.peak, want);
    for (int i = 0; i < N; i += 2)
        tp_heap_free(P(i));
    /* realloc-style take/restore */
    struct tp_blk blk;
    ck_assert_int_eq(tp_heap_take(P(1), &blk), 1);
    ck_assert_uint_eq(blk.size, 2);
    ck_assert_int_eq(tp_heap_take(P(1), &blk), 0);
    tp_heap_restore(P(1), &blk);
    for (int i = 1; i < N; i += 2)
        tp_heap_free(P(i));
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.live, 0);
    ck_assert_uint_eq(t.unknown_frees, 0);
    ck_assert_uint_eq(site_of(0xa0)->allocs, N);
    ck_assert_uint_eq(site_of(0xa0)->frees, N);
    /* The same addresses again: tombstones are reused, nothing is dropped. */
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 1000; i++)
            tp_heap_alloc(P(i), 8, SITE_B, NULL, 0);
        for (int i = 0; i < 1000; i++)
            tp_heap_free(P(i));
    }
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.live, 0);
    ck_assert_uint_eq(t.dropped, 0);
    ck_assert_uint_eq(site_of(0xb0)->allocs, 20000);
}
END_TEST

#define THREADS    4
#define PER_THREAD 200000

/* Thread t owns addresses P(i * THREADS + t): the threads' keys interleave in the table, so they
 * claim, vacate and probe past each other's slots (and no thread's keys form one long run that
 * the others must probe across). */
#define KEY(t, i) P((uintptr_t)(i)*THREADS + (uintptr_t)(t))

static void *worker(void *arg)
{
    uintptr_t t = (uintptr_t)arg;
    for (int round = 0; round < 2; round++) {
        for (uintptr_t i = 0; i < PER_THREAD; i++)
            tp_heap_alloc(KEY(t, i), 24, (void *)(uintptr_t)(0x1000 + (t ? 0x10 : 0)), NULL, 0);
        for (uintptr_t i = 0; i < PER_THREAD; i++)
            tp_heap_free(KEY(t, i));
    }
    return NULL;
}

START_TEST(test_concurrent_exact)
{
    struct tp_heap_totals t;
    setup_tables(1024);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.live, 0);
    ck_assert_uint_eq(t.unknown_frees, 0);
    ck_assert_uint_eq(t.dropped, 0);
    ck_assert_uint_eq(site_of(0x1000)->allocs, 2 * PER_THREAD);
    ck_assert_uint_eq(site_of(0x1010)->allocs, 2 * (THREADS - 1) * PER_THREAD);
    ck_assert_uint_eq(site_of(0x1010)->frees, 2 * (THREADS - 1) * PER_THREAD);
    ck_assert(t.peak >= 24 * PER_THREAD && t.peak <= 24ull * THREADS * PER_THREAD);
}
END_TEST

/* Churn: each thread keeps RING blocks live and replaces the oldest. The threads' i-th addresses
 * differ by 2 bytes, so they share one home slot: every insert probes past slots other threads
 * are emptying, and slots are vacated next to slots being claimed, all the time. A probe chain
 * cut short shows as a free of an unknown block and live bytes that never return to 0. */
#define RING            64
#define CHURN_OPS       300000
#define SAME_HOME(t, i) ((void *)(uintptr_t)(0x100000 + (uintptr_t)(i)*16 + (uintptr_t)(t)*2))

static void *churner(void *arg)
{
    uintptr_t t = (uintptr_t)arg;
    for (uintptr_t i = 0; i < CHURN_OPS + RING; i++) {
        if (i >= RING)
            tp_heap_free(SAME_HOME(t, (i - RING) % (4 * RING)));
        if (i < CHURN_OPS)
            tp_heap_alloc(SAME_HOME(t, i % (4 * RING)), 8 + t, (void *)(uintptr_t)(0x2000 + t * 16),
                          NULL, 0);
    }
    return NULL;
}

START_TEST(test_concurrent_churn)
{
    struct tp_heap_totals t;
    setup_tables(1024);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, churner, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    tp_heap_totals(&t);
    ck_assert_uint_eq(t.unknown_frees, 0);
    ck_assert_uint_eq(t.live, 0);
    ck_assert_uint_eq(t.dropped, 0);
    for (uintptr_t i = 0; i < THREADS; i++) {
        struct tp_site_sum *s = site_of(0x2000 + i * 16);
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(s->allocs, CHURN_OPS);
        ck_assert_uint_eq(s->frees, CHURN_OPS);
        ck_assert_uint_eq(s->bytes, (uint64_t)CHURN_OPS * (8 + i));
        ck_assert_uint_eq(s->live, 0);
        ck_assert_uint_eq(s->peak_live, RING * (8 + i));
    }
    ck_assert(t.peak >= RING * 8 && t.peak <= (uint64_t)THREADS * RING * (8 + THREADS));
}
END_TEST

/* A site by its whole stack. */
static struct tp_site_sum *site_of_stack(const uintptr_t *want, uint32_t nwant)
{
    for (uint32_t i = 1; i < tp_sites_count(); i++) {
        uint32_t n;
        const uintptr_t *f = tp_site_frames(i, &n);
        if (n == nwant && !memcmp(f, want, sizeof *f * n))
            return site_sum(i);
    }
    return NULL;
}

/* Stacks that share their first frame (one entry of a thread's cache of recent stacks), one a
 * prefix of another, in turn: each keeps its own site and exact figures. */
START_TEST(test_recent_stacks)
{
    tp_heap_init(NULL, NULL);
    tp_sites_init(4, 1024, 0, NULL);
    static const uintptr_t s1[] = {0x7000, 0x7100}, s2[] = {0x7000, 0x7200},
                           s3[] = {0x7000, 0x7100, 0x7300};
    void *r1[] = {(void *)s1[0], (void *)s1[1]};
    void *r2[] = {(void *)s2[0], (void *)s2[1]};
    void *r3[] = {(void *)s3[0], (void *)s3[1], (void *)s3[2]};
    for (int i = 0; i < 300; i += 3) {
        tp_heap_alloc(P(i), 10, NULL, r1, 2);
        tp_heap_alloc(P(i + 1), 20, NULL, r2, 2);
        tp_heap_alloc(P(i + 2), 30, NULL, r3, 3);
    }
    struct tp_site_sum *a = site_of_stack(s1, 2), *b = site_of_stack(s2, 2),
                       *c = site_of_stack(s3, 3);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(tp_sites_count(), 4);
    ck_assert_uint_eq(a->allocs, 100);
    ck_assert_uint_eq(a->bytes, 1000);
    ck_assert_uint_eq(b->allocs, 100);
    ck_assert_uint_eq(b->live, 2000);
    ck_assert_uint_eq(c->allocs, 100);
    ck_assert_uint_eq(c->live, 3000);
}
END_TEST

START_TEST(test_site_table_full)
{
    setup_tables(16);
    for (int i = 0; i < 40; i++)
        tp_heap_alloc(P(i), 10, (void *)(uintptr_t)(0x5000 + i * 16), NULL, 0);
    ck_assert_uint_eq(tp_sites_count(), 16);
    ck_assert_uint_eq(tp_sites_dropped(), 40 - 15);
    ck_assert_uint_eq(site_sum(0)->allocs, 25);
    ck_assert_uint_eq(site_sum(0)->live, 250);
}
END_TEST

/* More stacks than the first index holds (3,072 sites), found by four threads at once, each in
 * its own order, while the index grows under them: every stack gets exactly one site (a stack
 * published twice, or lost in a move, shows as a count below THREADS), and every count is exact. */
#define GROW_STACKS    20000
#define GROW_FRAME0(i) ((uintptr_t)0x100000 + (uintptr_t)(i)*16)
#define GROW_FRAME1(i) ((uintptr_t)0x900000 + (uintptr_t)((i) % 7) * 16)

static void *grower(void *arg)
{
    uintptr_t t = (uintptr_t)arg;
    for (uintptr_t k = 0; k < GROW_STACKS; k++) {
        uintptr_t i = (k + t * (GROW_STACKS / THREADS)) % GROW_STACKS;
        void *raw[] = {(void *)GROW_FRAME0(i), (void *)GROW_FRAME1(i)};
        tp_heap_alloc(P(0x1000000 + i * THREADS + t), i % 100 + 1, NULL, raw, 2);
    }
    return NULL;
}

/* Checks every site once: stack i's site has THREADS allocations of i % 100 + 1 bytes each. */
static uint64_t check_grown_sites(uint64_t *allocs, uint64_t *bytes)
{
    uint64_t found = 0;
    *allocs = *bytes = 0;
    for (uint32_t id = 1; id < tp_sites_count(); id++) {
        struct tp_site_sum *s = site_sum(id);
        if (!s->nframes)
            continue;
        uint32_t n;
        const uintptr_t *f = tp_site_frames(id, &n);
        ck_assert_uint_eq(n, 2);
        uintptr_t i = (f[0] - GROW_FRAME0(0)) / 16;
        ck_assert_uint_eq(f[1], GROW_FRAME1(i));
        ck_assert_uint_eq(s->allocs, THREADS);
        ck_assert_uint_eq(s->bytes, THREADS * (i % 100 + 1));
        *allocs += s->allocs;
        *bytes += s->bytes;
        found++;
    }
    return found;
}

START_TEST(test_sites_grow_threads)
{
    tp_heap_init(NULL, NULL);
    tp_sites_init(2, 0, 0, NULL);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, grower, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    uint64_t allocs, bytes, want_bytes = 0;
    for (uintptr_t i = 0; i < GROW_STACKS; i++)
        want_bytes += THREADS * (i % 100 + 1);
    ck_assert_uint_eq(check_grown_sites(&allocs, &bytes), GROW_STACKS);
    ck_assert_uint_eq(allocs, (uint64_t)THREADS * GROW_STACKS);
    ck_assert_uint_eq(bytes, want_bytes);
    ck_assert_uint_eq(tp_sites_dropped(), 0);
    ck_assert_uint_eq(site_sum(0)->allocs, 0);
    struct tp_sites_state st;
    tp_sites_state(&st);
    ck_assert_int_eq(st.limit, TP_SITES_GROWING);
    ck_assert_uint_ge(st.index_slots * 3 / 4, GROW_STACKS);
}
END_TEST

/* A budget too small for them: the table stops growing, and what it could not take is exactly
 * in the overflow site; with the sites it kept, the totals are whole. */
START_TEST(test_sites_budget_full)
{
    tp_heap_init(NULL, NULL);
    tp_sites_init(2, 0, 256 << 10, NULL);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, grower, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    uint64_t allocs, bytes, want_bytes = 0;
    for (uintptr_t i = 0; i < GROW_STACKS; i++)
        want_bytes += THREADS * (i % 100 + 1);
    uint64_t kept = check_grown_sites(&allocs, &bytes);
    struct tp_site_sum *o = site_sum(0);
    ck_assert_uint_lt(kept, GROW_STACKS);
    ck_assert_uint_gt(kept, 0);
    ck_assert_uint_eq(o->allocs, tp_sites_dropped());
    ck_assert_uint_eq(allocs + o->allocs, (uint64_t)THREADS * GROW_STACKS);
    ck_assert_uint_eq(bytes + o->bytes, want_bytes);
    ck_assert_uint_eq(o->live, o->bytes); /* nothing was freed */
    struct tp_sites_state st;
    tp_sites_state(&st);
    ck_assert_int_eq(st.limit, TP_SITES_BUDGET);
    ck_assert_uint_eq(st.budget, 256 << 10);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heap");
    TCase *tc = tcase_create("tables");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_peak_and_live_at_peak);
    tcase_add_test(tc, test_lifetime_split);
    tcase_add_test(tc, test_growth_and_reuse);
    tcase_add_test(tc, test_recent_stacks);
    tcase_add_test(tc, test_concurrent_exact);
    tcase_add_test(tc, test_concurrent_churn);
    tcase_add_test(tc, test_site_table_full);
    tcase_add_test(tc, test_sites_grow_threads);
    tcase_add_test(tc, test_sites_budget_full);
    tcase_add_test(tc, test_settle_leaves_one_copy);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
