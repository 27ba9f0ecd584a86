/* Heap accounting: the global live and peak, per-site figures, threads, time in the allocator.
 * The blocks themselves are in the live-block table (livetable.h).
 *
 * "Live at the global peak" per site is kept lazily: every new global peak bumps a sequence
 * number; a site that is modified after a peak first saves its pre-modification live bytes as its
 * at-peak figure. A site untouched since the last peak still has, at exit, the value it had then.
 * Exact for one thread; with several threads a site's at-peak figure can be off by what other
 * threads did between two instructions.
 *
 * Cost (bench/RESULTS.md): every locked instruction on a line that another core also writes costs
 * a cache-line transfer, so the hot path writes as few shared lines as exactness allows: the
 * global live/peak line, the site's live line, and the table's slots. Counts that need no exact
 * order (a site's allocations, frees and bytes; the table's occupancy) are kept per thread. */
#include "track/heap.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "common/clock.h"
#include "track/heap_state.h"
#include "track/heapsample.h"
#include "track/livetable.h"
#include "track/rawalloc.h"
#include "track/runtime.h"
#include "track/threads.h"
#include "track/sites.h"

static _Atomic uint64_t g_unknown_frees __attribute__((aligned(64)));
static _Atomic uint64_t g_failed, g_alloc_ns;
/* Time in the allocator is summed per thread and added to the global total in batches: one
 * shared counter written on every call would cost more than the call often does. A batch of
 * 2^18 ticks (50 to 260 us) is a locked add every few thousand calls, and bounds what a thread
 * still alive at the report, which cannot be read then, leaves out: at 2^22 an OpenMP pool's
 * workers, each with about a millisecond, were all left out of a figure of milliseconds. */
static TP_TLS uint64_t local_alloc_ticks;
#define ALLOC_TICKS_BATCH (1ull << 18)

static inline void add_ticks(uint64_t t)
{
    local_alloc_ticks += t;
    if (local_alloc_ticks >= ALLOC_TICKS_BATCH) {
        atomic_fetch_add_explicit(&g_alloc_ns, local_alloc_ticks, memory_order_relaxed);
        local_alloc_ticks = 0;
    }
}

/* Key destructor: what a thread kept to itself (the table's occupancy, its time in the
 * allocator) is added in when it exits. */
static void thread_exit(void *arg)
{
    (void)arg;
    tp_live_thread_exit();
    atomic_fetch_add_explicit(&g_alloc_ns, local_alloc_ticks, memory_order_relaxed);
    local_alloc_ticks = 0;
}

void tp_heap_init(int (*op_now)(void), void (*warn)(const char *fmt, ...))
{
    int saved = errno;
    tp_heap_op_now = op_now;
    if (tp_live_init(warn) < 0) {
        if (warn)
            warn("cannot map the heap table; heap accounting is off");
    } else {
        tp_heap_have_exit_key = pthread_key_create(&tp_heap_exit_key, thread_exit) == 0;
        atomic_store(&tp_heap_mode, tp_hs_on() ? TRACK_SAMPLED : TRACK_EXACT);
        if (tp_hs_on())
            tp_heap_hs_setup();
    }
    errno = saved;
}

int tp_heap_tracking(void)
{
    return atomic_load_explicit(&tp_heap_mode, memory_order_relaxed);
}

int tp_heap_alloc(void *p, size_t n, void *ra, void *const *raw, int got)
{
    if (!atomic_load_explicit(&tp_heap_mode, memory_order_relaxed))
        return 0;
    if (tp_unlikely(!tp_heap_thread_seen))
        tp_heap_thread_first();
    uint32_t site = tp_site_find(raw, got, ra);
    /* Counted before the block is recorded: its tag depends on whether it makes a peak. */
    uint64_t live = atomic_fetch_add_explicit(&tp_hg.live, n, memory_order_relaxed) + n;
    uint64_t peak = atomic_load_explicit(&tp_hg.peak, memory_order_relaxed);
    int is_peak = 0;
    while (live > peak) {
        if (atomic_compare_exchange_weak_explicit(&tp_hg.peak, &peak, live, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            is_peak = 1;
            break;
        }
    }
    uint64_t tag = atomic_load_explicit(&tp_hg.tag, memory_order_relaxed);
    uint64_t pseq;
    if (is_peak) {
        pseq = tp_heap_new_peak(tag);
    } else {
        pseq = atomic_load_explicit(&tp_hg.pseq, memory_order_relaxed);
        int state = atomic_load_explicit(&tp_hg.tag_state, memory_order_relaxed);
        if (tp_unlikely(state != TAG_USED))
            tag = tp_heap_tag_first_use(tag, state);
    }
    struct tp_blk b = {n, site, (uint32_t)tag}; /* the table keeps the low bits */
    if (tp_live_insert(p, b) < 0) {
        atomic_fetch_sub_explicit(&tp_hg.live, n, memory_order_relaxed);
        atomic_fetch_add(&tp_heap_dropped, 1);
        return 0;
    }

    struct tp_site_rec *s = tp_site_hot(site);
    uint64_t slive = atomic_fetch_add_explicit(&s->live, n, memory_order_relaxed) + n;
    tp_heap_site_sync(s, pseq, slive - n);
    tp_heap_max_store(&s->peak_live, slive);
    if (is_peak)
        atomic_store_explicit(&s->at_peak, slive, memory_order_relaxed);
    tp_site_count_alloc(site, n);
    return 1;
}

/* The accounting half of a free, for a block already taken out of the table. */
static inline __attribute__((always_inline)) void account_free(const struct tp_blk *b)
{
    atomic_fetch_sub_explicit(&tp_hg.live, b->size, memory_order_relaxed);
    if (tp_unlikely(atomic_load_explicit(&tp_hg.open, memory_order_relaxed)) &&
        tp_heap_in_peak_unit(b->tag))
        atomic_fetch_add_explicit(&tp_hg.freed, b->size, memory_order_relaxed);
    uint64_t pseq = atomic_load_explicit(&tp_hg.pseq, memory_order_relaxed);
    struct tp_site_rec *s = tp_site_hot(b->site);
    uint64_t before = atomic_fetch_sub_explicit(&s->live, b->size, memory_order_relaxed);
    tp_heap_site_sync(s, pseq, before);
    tp_site_count_free(b->site);
}

void tp_heap_failed(uint64_t ns)
{
    atomic_fetch_add_explicit(&g_failed, 1, memory_order_relaxed);
    add_ticks(ns);
}

void tp_heap_unknown_free(void)
{
    atomic_fetch_add_explicit(&g_unknown_frees, 1, memory_order_relaxed);
}

void tp_heap_add_alloc_ns(uint64_t ns)
{
    add_ticks(ns);
}

int tp_heap_take(void *p, struct tp_blk *out)
{
    if (!atomic_load_explicit(&tp_heap_mode, memory_order_relaxed))
        return 0;
    if (tp_hs_on() && !tp_hs_maybe(p))
        return 0;
    struct tp_blk b = tp_live_remove(p);
    if (b.site == TP_LIVE_NONE)
        return 0; /* *out left as it was */
    if (tp_hs_on())
        tp_hs_filter_del(p);
    *out = b;
    return 1;
}

void tp_heap_release(const struct tp_blk *b, void *p)
{
    (void)p;
    account_free(b);
}

void tp_heap_restore(void *p, const struct tp_blk *b)
{
    if (tp_live_insert(p, *b) < 0)
        atomic_fetch_add(&tp_heap_dropped, 1);
    else if (tp_hs_on())
        tp_hs_filter_add(p);
}

static _Atomic uint64_t live_at_unit_end;

void tp_heap_unit_end(void)
{
    atomic_store_explicit(&live_at_unit_end,
                          atomic_load_explicit(&tp_hg.live, memory_order_relaxed),
                          memory_order_relaxed);
    if (atomic_load_explicit(&tp_hg.tag_state, memory_order_relaxed) != TAG_NONE) {
        atomic_store_explicit(&tp_hg.tag_state, TAG_NONE, memory_order_relaxed);
        uint64_t t = atomic_fetch_add_explicit(&tp_hg.tag, 1, memory_order_relaxed) + 1;
        atomic_store_explicit(&tp_hgp.unit_lo, t, memory_order_relaxed);
    }
    if (atomic_load_explicit(&tp_hg.open, memory_order_relaxed)) {
        atomic_store_explicit(&tp_hg.open, 0, memory_order_relaxed);
        atomic_store_explicit(&tp_hgp.ended, 1, memory_order_relaxed);
    }
}

uint64_t tp_heap_live(uint64_t *floor)
{
    *floor = atomic_load_explicit(&live_at_unit_end, memory_order_relaxed);
    return atomic_load_explicit(&tp_hg.live, memory_order_relaxed);
}

void tp_heap_totals(struct tp_heap_totals *t)
{
    memset(t, 0, sizeof *t);
    t->live = atomic_load(&tp_hg.live);
    t->peak = atomic_load(&tp_hg.peak);
    t->peak_ns = atomic_load(&tp_hgp.peak_ns);
    t->pseq = atomic_load(&tp_hg.pseq);
    t->peak_op = atomic_load(&tp_hgp.peak_op);
    t->unknown_frees = atomic_load(&g_unknown_frees);
    t->failed_allocs = atomic_load(&g_failed);
    /* Accumulated in ticks; this thread's unflushed share and the exited threads' are added,
     * other live threads' (under 2^18 ticks each) are not. */
    t->alloc_ns = tp_ticks_to_ns(atomic_load(&g_alloc_ns) + local_alloc_ticks);
    t->dropped = atomic_load(&tp_heap_dropped);
    t->live_at_unit_end = atomic_load(&live_at_unit_end);
    if (atomic_load(&tp_hgp.ended)) {
        uint64_t f = atomic_load(&tp_hg.freed);
        t->transient_at_peak = f < t->peak ? f : t->peak;
    }
}

/* Across fork the tables' growth locks are held, so that a child never starts with a generation
 * half added or a call-site index half moved. */
void tp_heap_fork_prepare(void)
{
    tp_live_fork_prepare();
    tp_sites_fork_prepare();
}

void tp_heap_fork_parent(void)
{
    tp_sites_fork_parent();
    tp_live_fork_parent();
}

void tp_heap_fork_child(void)
{
    /* Only this thread exists now: plain stores are safe. The inherited blocks stay live;
     * everything counted restarts. */
    tp_live_fork_child();
    uint64_t live = atomic_load(&tp_hg.live);
    atomic_store(&tp_hg.peak, live);
    atomic_store(&tp_hgp.peak_ns, tp_now_ns());
    atomic_store(&tp_hgp.peak_op, -1);
    /* the inherited blocks are the child's persistent heap: no unit of its own freed them */
    atomic_store(&tp_hg.open, 0);
    atomic_store(&tp_hgp.ended, 0);
    atomic_store(&tp_hg.tag_state, TAG_USED);
    tp_heap_unit_end();
    atomic_store(&tp_hg.pseq, atomic_load(&tp_hg.pseq) + 1);
    atomic_store(&g_unknown_frees, 0);
    atomic_store(&g_failed, 0);
    atomic_store(&g_alloc_ns, 0);
    atomic_store(&tp_heap_threads_n, 1);
    local_alloc_ticks = 0;
    tp_heap_thread_seen = 1;
    tp_hs_fork_child();
    tp_sites_fork_child();
    uint32_t n = tp_sites_count();
    for (uint32_t i = 0; i < n; i++) {
        struct tp_site_rec *s = tp_site_hot(i);
        uint64_t l = atomic_load(&s->live);
        atomic_store(&s->peak_live, l);
        atomic_store(&s->at_peak, l);
        atomic_store(&s->seen_pseq, atomic_load(&tp_hg.pseq));
    }
}

size_t tp_heap_free(void *p)
{
    /* one load and one branch for both modes: the exact one's path pays nothing for the other */
    int t = atomic_load_explicit(&tp_heap_mode, memory_order_relaxed);
    if (t != TRACK_EXACT) {
        if (t == TRACK_SAMPLED)
            tp_heap_hs_free(p);
        return 0;
    }
    struct tp_blk b = tp_live_remove(p);
    if (b.site == TP_LIVE_NONE) {
        atomic_fetch_add_explicit(&g_unknown_frees, 1, memory_order_relaxed);
        return 0;
    }
    account_free(&b);
    return b.size;
}

const char *tp_heap_alloc_method(void)
{
    if (tp_hs_on())
        return "sampled blocks timed, each weighted as its bytes; a call of 2^17 ticks or more "
               "counted once";
    return "calls of 64 KiB or more timed; of the others 1 in 16 timed, counted 16 times, or "
           "once when it took 2^17 ticks or more";
}

void tp_heap_forget(void *p)
{
    if (tp_hs_on() && !tp_hs_maybe(p))
        return;
    struct tp_blk b = tp_live_remove(p);
    if (b.site != TP_LIVE_NONE) {
        if (tp_hs_on()) {
            tp_hs_filter_del(p);
            tp_heap_hs_account_free(
                &b); /* the global figure has no record to say its usable size */
        } else {
            account_free(&b);
        }
    }
}
