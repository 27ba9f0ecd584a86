/* Heap accounting: the global live and peak, per-site figures, threads, time in the allocator.
 * The blocks themselves are in the live-block table (track/heap/livetable.c).
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
 * order (a site's allocations, frees and bytes; the table's occupancy) are kept per thread. The
 * global live bytes keep one locked add per call: the peak is the largest value they take in one
 * order of the calls that agrees with the program's own synchronisation, which the modification
 * order of one counter gives and counts kept per thread do not (bench/RESULTS.md). */
#include "track/heap/heap.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "common/clock.h"
#include "track/rawalloc.h"
#include "track/runtime.h"
#include "track/steps/steps.h"
#include "track/sites/sites.h"

/* Whether blocks are recorded: 0 until the table is mapped, and when it cannot be. */
static _Atomic int tracking;
/* Set once at init, before any allocation is recorded. */
static int (*op_now_fn)(void);

/* Written on every allocation and free, by every thread: on a line of their own (the type's
 * alignment pads it to the whole line, so no other variable is placed after it), so a call moves
 * one line between cores for them, not three.
 *
 * Persistent and transient, of the peak, by lifetime: a block live at the peak is transient if it
 * is freed before the unit it belongs to ends (tp_heap_unit_end(); the unit running when it was
 * allocated, or the next one). Whether it will be is not known at the peak, so every block
 * carries a tag (track/heap/livetable.c: 16 bits), and the tags of the peak's unit up to the peak are a
 * range [peak_lo, peak_hi]: `tag` moves on when a unit that used it ends, and when a block is
 * allocated after a peak that was made with it. Frees of blocks in the range while the peak's
 * unit lasts add up to the transient part; a new peak starts again. Exact while the tags of one
 * unit do not wrap (65,536 units, or peaks each followed by a smaller allocation, between a block
 * being allocated and its free in the peak's unit) and for one thread; with several, a free on
 * one thread racing a unit's end on another may fall on either side. */
struct __attribute__((aligned(64))) heap_hot {
    _Atomic uint64_t live, peak, pseq;
    _Atomic uint64_t tag;              /* the tag new blocks get */
    _Atomic uint64_t peak_lo, peak_hi; /* the tags of the peak's unit up to the peak */
    _Atomic uint64_t freed;            /* of the peak, freed in its unit so far */
    _Atomic int open;                  /* the peak's unit has not ended: its frees count */
    _Atomic int tag_state;             /* who got `tag`: TAG_NONE, TAG_PEAK, TAG_USED */
};
static struct heap_hot hg;

/* No block got the tag yet; the last block that got it made a peak; blocks got it, the last one
 * not making a peak. One load on an allocation (TAG_USED, mostly) says whether to do more. */
enum { TAG_NONE, TAG_PEAK, TAG_USED };

/* Written at a new peak and at a unit's end only. */
struct __attribute__((aligned(64))) heap_peakinfo {
    _Atomic uint64_t peak_ns;
    _Atomic uint64_t unit_lo; /* the first tag of the unit running (or next to run) */
    _Atomic int peak_op;
    _Atomic int ended; /* the peak's unit has ended: `freed` is final */
};
static struct heap_peakinfo hgp = {.peak_op = -1};

#define TAG_MASK ((1u << TP_LIVE_TAG_BITS) - 1)

static _Atomic uint64_t dropped; /* blocks the live-block table had no room for */
static TP_TLS int thread_seen;

static inline void max_store(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* Bring a site's at-peak figure up to date: `before` is its live bytes before the change just
 * made. The change comes first and this after, and the global line is likewise written before it
 * is read: a line that other cores write is then fetched once, for writing, instead of once to
 * read and again to write. */
static inline void site_sync(struct tp_site_rec *s, uint64_t pseq, uint64_t before)
{
    if (atomic_load_explicit(&s->seen_pseq, memory_order_relaxed) != pseq) {
        atomic_store_explicit(&s->at_peak, before, memory_order_relaxed);
        atomic_store_explicit(&s->seen_pseq, pseq, memory_order_relaxed);
    }
}

/* A new global peak, made by a block tagged `tag`: its sequence number, time, op, and the range
 * of tags whose frees make its transient part. */
static inline uint64_t new_peak(uint64_t tag)
{
    uint64_t pseq = atomic_fetch_add_explicit(&hg.pseq, 1, memory_order_relaxed) + 1;
    atomic_store_explicit(&hgp.peak_ns, tp_now_ns(), memory_order_relaxed);
    atomic_store_explicit(&hgp.peak_op, op_now_fn ? op_now_fn() : -1, memory_order_relaxed);
    atomic_store_explicit(&hg.peak_lo, atomic_load_explicit(&hgp.unit_lo, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&hg.peak_hi, tag, memory_order_relaxed);
    atomic_store_explicit(&hg.freed, 0, memory_order_relaxed);
    atomic_store_explicit(&hg.open, 1, memory_order_relaxed);
    atomic_store_explicit(&hgp.ended, 0, memory_order_relaxed);
    atomic_store_explicit(&hg.tag_state, TAG_PEAK, memory_order_relaxed);
    return pseq;
}

/* Is a block tagged t, freed now, part of the peak that its unit frees? */
static inline int in_peak_unit(uint32_t t)
{
    uint64_t lo = atomic_load_explicit(&hg.peak_lo, memory_order_relaxed);
    uint64_t hi = atomic_load_explicit(&hg.peak_hi, memory_order_relaxed);
    return ((t - lo) & TAG_MASK) <= ((hi - lo) & TAG_MASK);
}

/* The key whose destructor flushes what an exiting thread kept to itself (made by tp_heap_init
 * when it can be). */
static pthread_key_t exit_key;
static int have_exit_key;

/* A thread's first recorded allocation: note it, and have its exit flush what it keeps. */
static __attribute__((noinline, cold)) void thread_first(void)
{
    thread_seen = 1;
    tp_thread_note();
    if (have_exit_key)
        pthread_setspecific(exit_key, (void *)1);
}

/* The first block since the tag's state was other than TAG_USED, not making a peak. If the tag
 * was last given to a peak's block, this block must not pass for one live at that peak: the tag
 * moves on (once per peak, not per allocation). */
static __attribute__((noinline)) uint64_t tag_first_use(uint64_t tag, int state)
{
    if (state == TAG_PEAK) {
        uint64_t now = tag;
        if (atomic_compare_exchange_strong_explicit(&hg.tag, &now, tag + 1, memory_order_relaxed,
                                                    memory_order_relaxed))
            now = tag + 1;
        tag = now; /* else moved by another thread: the value it has now */
    }
    atomic_store_explicit(&hg.tag_state, TAG_USED, memory_order_relaxed);
    return tag;
}

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
    op_now_fn = op_now;
    if (tp_live_init(warn) < 0) {
        if (warn)
            warn("cannot map the heap table; heap accounting is off");
    } else {
        have_exit_key = pthread_key_create(&exit_key, thread_exit) == 0;
        atomic_store(&tracking, 1);
    }
    errno = saved;
}

int tp_heap_tracking(void)
{
    return atomic_load_explicit(&tracking, memory_order_relaxed);
}

int tp_heap_alloc(void *p, size_t n, void *ra, void *const *raw, int got)
{
    if (!atomic_load_explicit(&tracking, memory_order_relaxed))
        return 0;
    if (tp_unlikely(!thread_seen))
        thread_first();
    uint32_t site = tp_site_find(raw, got, ra);
    /* Counted before the block is recorded: its tag depends on whether it makes a peak. */
    uint64_t live = atomic_fetch_add_explicit(&hg.live, n, memory_order_relaxed) + n;
    uint64_t peak = atomic_load_explicit(&hg.peak, memory_order_relaxed);
    int is_peak = 0;
    while (live > peak) {
        if (atomic_compare_exchange_weak_explicit(&hg.peak, &peak, live, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            is_peak = 1;
            break;
        }
    }
    uint64_t tag = atomic_load_explicit(&hg.tag, memory_order_relaxed);
    uint64_t pseq;
    if (is_peak) {
        pseq = new_peak(tag);
    } else {
        pseq = atomic_load_explicit(&hg.pseq, memory_order_relaxed);
        int state = atomic_load_explicit(&hg.tag_state, memory_order_relaxed);
        if (tp_unlikely(state != TAG_USED))
            tag = tag_first_use(tag, state);
    }
    struct tp_blk b = {n, site, (uint32_t)tag}; /* the table keeps the low bits */
    if (tp_live_insert(p, b) < 0) {
        atomic_fetch_sub_explicit(&hg.live, n, memory_order_relaxed);
        atomic_fetch_add(&dropped, 1);
        return 0;
    }

    struct tp_site_rec *s = tp_site_hot(site);
    uint64_t slive = atomic_fetch_add_explicit(&s->live, n, memory_order_relaxed) + n;
    site_sync(s, pseq, slive - n);
    max_store(&s->peak_live, slive);
    if (is_peak)
        atomic_store_explicit(&s->at_peak, slive, memory_order_relaxed);
    tp_site_count_alloc(site, n);
    return 1;
}

/* The accounting half of a free, for a block already taken out of the table. */
static inline __attribute__((always_inline)) void account_free(const struct tp_blk *b)
{
    atomic_fetch_sub_explicit(&hg.live, b->size, memory_order_relaxed);
    if (tp_unlikely(atomic_load_explicit(&hg.open, memory_order_relaxed)) && in_peak_unit(b->tag))
        atomic_fetch_add_explicit(&hg.freed, b->size, memory_order_relaxed);
    uint64_t pseq = atomic_load_explicit(&hg.pseq, memory_order_relaxed);
    struct tp_site_rec *s = tp_site_hot(b->site);
    uint64_t before = atomic_fetch_sub_explicit(&s->live, b->size, memory_order_relaxed);
    site_sync(s, pseq, before);
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
    if (!atomic_load_explicit(&tracking, memory_order_relaxed))
        return 0;
    struct tp_blk b = tp_live_remove(p);
    if (b.site == TP_LIVE_NONE)
        return 0; /* *out left as it was */
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
        atomic_fetch_add(&dropped, 1);
}

static _Atomic uint64_t live_at_unit_end;

void tp_heap_unit_end(void)
{
    atomic_store_explicit(&live_at_unit_end, atomic_load_explicit(&hg.live, memory_order_relaxed),
                          memory_order_relaxed);
    if (atomic_load_explicit(&hg.tag_state, memory_order_relaxed) != TAG_NONE) {
        atomic_store_explicit(&hg.tag_state, TAG_NONE, memory_order_relaxed);
        uint64_t t = atomic_fetch_add_explicit(&hg.tag, 1, memory_order_relaxed) + 1;
        atomic_store_explicit(&hgp.unit_lo, t, memory_order_relaxed);
    }
    if (atomic_load_explicit(&hg.open, memory_order_relaxed)) {
        atomic_store_explicit(&hg.open, 0, memory_order_relaxed);
        atomic_store_explicit(&hgp.ended, 1, memory_order_relaxed);
    }
}

uint64_t tp_heap_live(uint64_t *floor)
{
    *floor = atomic_load_explicit(&live_at_unit_end, memory_order_relaxed);
    return atomic_load_explicit(&hg.live, memory_order_relaxed);
}

void tp_heap_totals(struct tp_heap_totals *t)
{
    memset(t, 0, sizeof *t);
    t->live = atomic_load(&hg.live);
    t->peak = atomic_load(&hg.peak);
    t->peak_ns = atomic_load(&hgp.peak_ns);
    t->pseq = atomic_load(&hg.pseq);
    t->peak_op = atomic_load(&hgp.peak_op);
    t->unknown_frees = atomic_load(&g_unknown_frees);
    t->failed_allocs = atomic_load(&g_failed);
    /* Accumulated in ticks; this thread's unflushed share and the exited threads' are added,
     * other live threads' (under 2^18 ticks each) are not. */
    t->alloc_ns = tp_ticks_to_ns(atomic_load(&g_alloc_ns) + local_alloc_ticks);
    t->dropped = atomic_load(&dropped);
    t->live_at_unit_end = atomic_load(&live_at_unit_end);
    if (atomic_load(&hgp.ended)) {
        uint64_t f = atomic_load(&hg.freed);
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
    tp_ggmlbuf_fork_child();
    uint64_t live = atomic_load(&hg.live);
    atomic_store(&hg.peak, live);
    atomic_store(&hgp.peak_ns, tp_now_ns());
    atomic_store(&hgp.peak_op, -1);
    /* the inherited blocks are the child's persistent heap: no unit of its own freed them */
    atomic_store(&hg.open, 0);
    atomic_store(&hgp.ended, 0);
    atomic_store(&hg.tag_state, TAG_USED);
    tp_heap_unit_end();
    atomic_store(&hg.pseq, atomic_load(&hg.pseq) + 1);
    atomic_store(&g_unknown_frees, 0);
    atomic_store(&g_failed, 0);
    atomic_store(&g_alloc_ns, 0);
    local_alloc_ticks = 0;
    thread_seen = 1;
    tp_sites_fork_child();
    uint32_t n = tp_sites_count();
    for (uint32_t i = 0; i < n; i++) {
        struct tp_site_rec *s = tp_site_hot(i);
        uint64_t l = atomic_load(&s->live);
        atomic_store(&s->peak_live, l);
        atomic_store(&s->at_peak, l);
        atomic_store(&s->seen_pseq, atomic_load(&hg.pseq));
    }
}

size_t tp_heap_free(void *p)
{
    if (!atomic_load_explicit(&tracking, memory_order_relaxed))
        return 0;
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
    return "calls of 64 KiB or more timed; of the others 1 in 16 timed, counted 16 times, or "
           "once when it took 2^17 ticks or more";
}

void tp_heap_forget(void *p)
{
    struct tp_blk b = tp_live_remove(p);
    if (b.site != TP_LIVE_NONE)
        account_free(&b);
}
