/* Heap accounting: the live-block table, the global live and peak, per-site figures.
 *
 * The live-block table is lock-free open addressing (linear probing) over mmap'ed slots: a key is
 * claimed with a CAS; a free turns it into a tombstone, or into an empty slot where no probe chain
 * needs it (see vacate()). The table never moves: when the newest generation fills up, a new
 * generation is added and takes the inserts; lookups search newest to oldest. Keys
 * are unique among live blocks (the allocator never hands out a live address twice, and the free
 * shim removes the record before the real free), which is what makes this safe without locks.
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
#include "common/pages.h"
#include "track/heap.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "common/clock.h"
#include "track/runtime.h"
#include "track/ops.h"
#include "track/sites.h"

/* Keys: a block's address, or one of these (no block lives at address 0, 1 or 2). */
#define KEY_EMPTY ((uintptr_t)0)
#define KEY_TOMB ((uintptr_t)1)
#define KEY_BUSY ((uintptr_t)2) /* being vacated: becomes TOMB or EMPTY in a few instructions */
#define FIRST_SLOTS 4096 /* 64 KiB: a small live set stays in cache; the table grows with it */
/* Each generation is a quarter bigger than the last. Memory per live block is 16 bytes / 0.7 just
 * before a growth and 16 * growth / 0.7 just after it (the hash spreads a new generation's first
 * entries over all of its pages): doubling swung between 22.9 and 45.7 bytes, a quarter stays
 * under 28.6. The price is more generations for a free to search (a million blocks fill 20, not
 * 9), but only the big ones cost a cache miss each, and the newest, where young blocks are, is
 * searched first (bench/RESULTS.md). */
/* 4,096 slots growing by 1.25 reach 2^36 slots (1 TiB of table) in 76 generations */
#define MAX_GENS 80

/* value: size in the low 40 bits, site in the next 23, "early" in the top bit */
#define VAL_SIZE_BITS 40
#define VAL_SITE_BITS 23
#define VAL_SIZE_MASK ((1ull << VAL_SIZE_BITS) - 1)
#define VAL_SITE_MASK ((1ull << VAL_SITE_BITS) - 1)
#define VAL_EARLY (1ull << 63)

struct slot {
    _Atomic uintptr_t key;
    _Atomic uint64_t val;
};

struct gen {
    struct slot *slots;
    uint64_t n;             /* slots, a multiple of 256 (whole pages) */
    uint64_t spans;         /* n / 64 */
    int64_t batch;          /* per-thread change of `used` kept before it is added in */
    _Atomic uint64_t used; /* slots claimed (live or tombstone), as a signed count: see used_add */
};

static struct gen gens[MAX_GENS];
static _Atomic int ngens;
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int tracking;

/* Written on every allocation and free, by every thread: on a line of their own (the type's
 * alignment pads it to the whole line, so no other variable is placed after it), so a call moves
 * one line between cores for them, not three. */
static struct __attribute__((aligned(64))) {
    _Atomic uint64_t live, peak, pseq;
    /* Live bytes allocated after the first op or step began. The rest of the live bytes were
     * allocated before ("early": the model's parameters, in an ML program), so a program with no
     * ops never writes this. */
    _Atomic uint64_t late_live;
    _Atomic uint64_t peak_ns, early_at_peak; /* the early part of the peak */
    _Atomic int peak_op;
} g = {.peak_op = -1};

static _Atomic uint64_t g_unknown_frees __attribute__((aligned(64)));
static _Atomic uint64_t g_failed, g_alloc_ns, g_dropped, g_threads;
static TP_TLS int thread_seen;
/* Time in the allocator is summed per thread and added to the global total in batches: one
 * shared counter written on every call would cost more than the call often does. */
static TP_TLS uint64_t local_alloc_ticks;
#define ALLOC_TICKS_BATCH (1ull << 22)

/* The table's occupancy is counted per thread too: this thread's change to gens[used_gen].used
 * not yet added in. Flushed every gens[].batch slots (a 4,096-slot generation is over-filled by
 * at most 16 slots per thread before it grows), at the thread's exit, and whenever the thread
 * touches another generation. */
static TP_TLS int used_gen = -1;
static TP_TLS int64_t used_delta;
static TP_TLS int thread_exiting;
static pthread_key_t exit_key;
static int have_exit_key;

static inline void add_ticks(uint64_t t)
{
    local_alloc_ticks += t;
    if (local_alloc_ticks >= ALLOC_TICKS_BATCH) {
        atomic_fetch_add_explicit(&g_alloc_ns, local_alloc_ticks, memory_order_relaxed);
        local_alloc_ticks = 0;
    }
}

static void maybe_grow(int gi, int force);

/* The shared count changes only here, so this is where a generation is seen to fill up. */
static void used_flush(void)
{
    int64_t d = used_delta;
    used_delta = 0;
    if (d != 0)
        atomic_fetch_add_explicit(&gens[used_gen].used, (uint64_t)d, memory_order_relaxed);
    if (d > 0)
        maybe_grow(used_gen, 0);
}

static inline void used_add(int gi, int64_t d)
{
    if (tp_unlikely(used_gen != gi)) {
        if (used_gen >= 0)
            used_flush();
        used_gen = gi;
    }
    used_delta += d;
    int64_t b = gens[gi].batch;
    if (used_delta >= b || used_delta <= -b || tp_unlikely(thread_exiting))
        used_flush();
}

/* Key destructor: a thread's last change to the occupancy is added in when it exits. */
static void thread_exit(void *arg)
{
    (void)arg;
    thread_exiting = 1;
    if (used_gen >= 0)
        used_flush();
    atomic_fetch_add_explicit(&g_alloc_ns, local_alloc_ticks, memory_order_relaxed);
    local_alloc_ticks = 0;
}

/* Keep the program's locality, but not its runs. The low 6 bits of a slot number are address bits
 * 4-9, the rest a hash of the 1 KiB span above: blocks allocated close together share a 64-slot
 * run of the table (its lines are touched with the program's own locality; a hash of the whole
 * address made every insert and remove a cache miss in a large table), and spans land
 * independently. With the address alone (bits 4 and up) a dense series of 16-byte blocks filled
 * one run as long as the series, and every lookup of a block in an older generation whose home
 * fell inside it probed to its end: freeing 800,000 such blocks took minutes. */
#define SPAN_BITS 6
static inline uint64_t hash_ptr(uintptr_t p, const struct gen *G)
{
    uint64_t mix = (uint64_t)(p >> (4 + SPAN_BITS)) * 0x9E3779B97F4A7C15ull;
    uint64_t span = (uint64_t)(((unsigned __int128)mix * G->spans) >> 64);
    return (span << SPAN_BITS) | ((p >> 4) & ((1u << SPAN_BITS) - 1));
}

/* i + 1 and i - 1 around the ring of G's slots; at(G, i) for an i below 2n. */
static inline uint64_t at(const struct gen *G, uint64_t i)
{
    return i >= G->n ? i - G->n : i;
}
static inline uint64_t next_i(const struct gen *G, uint64_t i)
{
    return i + 1 == G->n ? 0 : i + 1;
}
static inline uint64_t prev_i(const struct gen *G, uint64_t i)
{
    return i == 0 ? G->n - 1 : i - 1;
}

static int add_gen(uint64_t slots)
{
    int n = atomic_load(&ngens);
    if (n >= MAX_GENS)
        return -1;
    size_t bytes = sizeof(struct slot) * slots;
    void *m = tp_pages_map(bytes, 1);
    if (!m)
        return -1;
    gens[n].slots = m;
    gens[n].n = slots;
    gens[n].spans = slots >> SPAN_BITS;
    gens[n].batch = slots > 16384 ? 64 : (int64_t)(slots >> 8);
    atomic_store(&gens[n].used, 0);
    atomic_store_explicit(&ngens, n + 1, memory_order_release);
    return 0;
}

static uint64_t next_size(uint64_t slots)
{
    return (slots + slots / 4 + 255) & ~(uint64_t)255;
}

void tp_heap_init(void)
{
    int saved = errno;
    if (atomic_load(&ngens) == 0 && add_gen(FIRST_SLOTS) < 0) {
        tp_warn("cannot map the heap table; heap accounting is off");
    } else {
        have_exit_key = pthread_key_create(&exit_key, thread_exit) == 0;
        atomic_store(&tracking, 1);
    }
    errno = saved;
}

int tp_heap_tracking(void)
{
    return atomic_load_explicit(&tracking, memory_order_relaxed) &&
           atomic_load_explicit(&tp_state, memory_order_relaxed) < TP_FINISHING;
}

/* Grow when the newest generation is 70% claimed (as the threads' flushed counts say), or when
 * an insert found no free slot in it at all (force). */
static void maybe_grow(int gi, int force)
{
    struct gen *G = &gens[gi];
    int64_t used = (int64_t)atomic_load_explicit(&G->used, memory_order_relaxed);
    if (!force && used * 10 < (int64_t)G->n * 7)
        return;
    pthread_mutex_lock(&grow_lock);
    if (atomic_load(&ngens) == gi + 1 && add_gen(next_size(G->n)) < 0)
        tp_warn("cannot grow the heap table");
    pthread_mutex_unlock(&grow_lock);
}

/* Wait for a slot being vacated by another thread to settle (a few instructions, unless that
 * thread lost its core). */
static uintptr_t settled_key(struct slot *s)
{
    uintptr_t k;
    for (unsigned n = 0; (k = atomic_load(&s->key)) == KEY_BUSY; n++) {
        if (n < 64)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
    return k;
}

/* Slot i of G is KEY_BUSY, ours: give it up. A slot may become empty only while its right
 * neighbour is empty, else a key further right could be cut off from its home. The neighbour is
 * read after the slot was made busy (a locked instruction), and an insert reads the slots left of
 * its own after claiming it (settle()), so of a vacate and an insert racing on two neighbouring
 * slots, at least one sees the other: either this finds the neighbour taken and leaves a
 * tombstone, or the insert finds the slot empty and moves left into it. Then the same for a
 * tombstone to the left. Without this every address the allocator ever handed out keeps a claimed
 * slot, and the table grows with the allocations made instead of the blocks live (1,024 live
 * blocks churned 10^6 times: 7 generations, 8 MiB of cache-cold slots). */
static inline __attribute__((always_inline)) void vacate(int gi, uint64_t i)
{
    struct gen *G = &gens[gi];
    for (uint64_t n = 0;; n++) {
        struct slot *s = &G->slots[i];
        if (n >= G->n || atomic_load(&G->slots[next_i(G, i)].key) != KEY_EMPTY) {
            atomic_store_explicit(&s->key, KEY_TOMB, memory_order_release);
            return;
        }
        atomic_store_explicit(&s->key, KEY_EMPTY, memory_order_release);
        used_add(gi, -1);
        uintptr_t t = KEY_TOMB;
        i = prev_i(G, i);
        /* Looked at first: the locked instruction only for a tombstone (most frees find a key or
         * an empty slot there). One that turns into a tombstone just after is left for an insert
         * to reuse, as when the CAS loses a race. */
        if (atomic_load_explicit(&G->slots[i].key, memory_order_relaxed) != KEY_TOMB ||
            !atomic_compare_exchange_strong(&G->slots[i].key, &t, KEY_BUSY))
            return;
    }
}

/* p was placed at distance d from its home h: every slot between must stay non-empty, or lookups
 * stop before p. Checked right to left, after the claim (see vacate()): a slot found non-empty
 * stays so while its right neighbour is. If one turned empty meanwhile, p moves there; p is not
 * yet known to the program, so nobody looks it up while it moves. */
static void settle(int gi, uint64_t h, uint64_t d, uintptr_t p, uint64_t val)
{
    struct gen *G = &gens[gi];
    while (d > 0) {
        uint64_t b = d - 1;
        struct slot *s = &G->slots[at(G, h + b)];
        uintptr_t k = settled_key(s);
        if (k != KEY_EMPTY) {
            d = b;
            continue;
        }
        if (!atomic_compare_exchange_strong(&s->key, &k, p))
            continue; /* filled by someone else meanwhile: look at it again */
        atomic_store_explicit(&s->val, val, memory_order_release);
        used_add(gi, 1);
        uintptr_t mine = p;
        if (atomic_compare_exchange_strong(&G->slots[at(G, h + d)].key, &mine, KEY_BUSY))
            vacate(gi, at(G, h + d));
        d = b;
    }
}

static inline __attribute__((always_inline)) int table_insert(uintptr_t p, uint64_t val)
{
    for (int attempt = 0; attempt < 4; attempt++) {
        int gi = atomic_load_explicit(&ngens, memory_order_acquire) - 1;
        struct gen *G = &gens[gi];
        uint64_t h = hash_ptr(p, G);
        for (uint64_t i = 0; i < G->n; i++) {
            struct slot *s = &G->slots[at(G, h + i)];
            uintptr_t k = atomic_load_explicit(&s->key, memory_order_relaxed);
            if (k != KEY_EMPTY && k != KEY_TOMB)
                continue; /* a key, or busy (it will not become ours to use: pass it) */
            if (atomic_compare_exchange_strong(&s->key, &k, p)) {
                /* Nobody reads the value before the program frees p, which it can only do
                 * after malloc returned it, i.e. after this store. */
                atomic_store_explicit(&s->val, val, memory_order_release);
                if (k == KEY_EMPTY)
                    used_add(gi, 1); /* may add the next generation: see used_flush() */
                if (i > 0)
                    settle(gi, h, i, p, val);
                return 0;
            }
            i--; /* the slot changed under us: look at it again */
        }
        maybe_grow(gi, 1);
    }
    return -1;
}

/* Find p and take it out of the table; 1 and *val when found. */
static inline __attribute__((always_inline)) int table_remove(uintptr_t p, uint64_t *val)
{
    for (int gi = atomic_load_explicit(&ngens, memory_order_acquire) - 1; gi >= 0; gi--) {
        struct gen *G = &gens[gi];
        uint64_t h = hash_ptr(p, G);
        for (uint64_t i = 0; i < G->n; i++) {
            struct slot *s = &G->slots[at(G, h + i)];
            uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
            if (k == KEY_EMPTY)
                break;
            if (k != p)
                continue; /* another key, a tombstone, or busy (never p: p is live) */
            *val = atomic_load_explicit(&s->val, memory_order_relaxed);
            if (atomic_compare_exchange_strong(&s->key, &k, KEY_BUSY)) {
                vacate(gi, at(G, h + i));
                return 1;
            }
            return 0; /* someone else removed it: a double free in the program */
        }
    }
    return 0;
}

static inline uint64_t pack(const struct tp_blk *b)
{
    uint64_t size = b->size > VAL_SIZE_MASK ? VAL_SIZE_MASK : b->size;
    return size | ((uint64_t)(b->site & VAL_SITE_MASK) << VAL_SIZE_BITS) | (b->early ? VAL_EARLY : 0);
}

static inline void unpack(uint64_t v, struct tp_blk *b)
{
    b->size = v & VAL_SIZE_MASK;
    b->site = (uint32_t)((v >> VAL_SIZE_BITS) & VAL_SITE_MASK);
    b->early = (v & VAL_EARLY) != 0;
}

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
static inline void site_sync_peak(struct tp_site_rec *s, uint64_t pseq, uint64_t before)
{
    if (atomic_load_explicit(&s->seen_pseq, memory_order_relaxed) != pseq) {
        atomic_store_explicit(&s->at_peak, before, memory_order_relaxed);
        atomic_store_explicit(&s->seen_pseq, pseq, memory_order_relaxed);
    }
}

/* A thread's first recorded allocation: count it, and have its exit flush what it keeps. */
static void thread_first(void)
{
    thread_seen = 1;
    atomic_fetch_add(&g_threads, 1);
    if (have_exit_key)
        pthread_setspecific(exit_key, (void *)1);
}

void tp_heap_alloc(void *p, size_t n, void *ra, void *const *raw, int got, uint64_t ns)
{
    if (!atomic_load_explicit(&tracking, memory_order_relaxed))
        return;
    if (tp_unlikely(!thread_seen))
        thread_first();
    if (ns) /* 1 call in CLOCK_EVERY is timed (hook_malloc.c) */
        add_ticks(ns);
    uint32_t site = tp_site_find(raw, got, ra);
    struct tp_blk b = {n, site, tp_ops_first_ns() == 0};
    if (table_insert((uintptr_t)p, pack(&b)) < 0) {
        atomic_fetch_add(&g_dropped, 1);
        return;
    }
    tp_ops_on_alloc(n);
    /* late_live before live: at a peak that this block makes, it is already counted as late. */
    if (!b.early)
        atomic_fetch_add_explicit(&g.late_live, n, memory_order_relaxed);

    uint64_t live = atomic_fetch_add_explicit(&g.live, n, memory_order_relaxed) + n;
    uint64_t peak = atomic_load_explicit(&g.peak, memory_order_relaxed);
    int is_peak = 0;
    while (live > peak) {
        if (atomic_compare_exchange_weak_explicit(&g.peak, &peak, live, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            is_peak = 1;
            break;
        }
    }
    uint64_t pseq;
    if (is_peak) {
        pseq = atomic_fetch_add_explicit(&g.pseq, 1, memory_order_relaxed) + 1;
        atomic_store_explicit(&g.peak_ns, tp_now_ns(), memory_order_relaxed);
        atomic_store_explicit(&g.peak_op, tp_ops_current(), memory_order_relaxed);
        uint64_t late = atomic_load_explicit(&g.late_live, memory_order_relaxed);
        atomic_store_explicit(&g.early_at_peak, live > late ? live - late : 0, memory_order_relaxed);
    } else {
        pseq = atomic_load_explicit(&g.pseq, memory_order_relaxed);
    }

    struct tp_site_rec *s = tp_site_hot(site);
    uint64_t slive = atomic_fetch_add_explicit(&s->live, n, memory_order_relaxed) + n;
    site_sync_peak(s, pseq, slive - n);
    max_store(&s->peak_live, slive);
    if (is_peak)
        atomic_store_explicit(&s->at_peak, slive, memory_order_relaxed);
    tp_site_count_alloc(site, n);
}

/* The accounting half of a free, for a block already taken out of the table. */
static inline __attribute__((always_inline)) void account_free(const struct tp_blk *b)
{
    if (!b->early)
        atomic_fetch_sub_explicit(&g.late_live, b->size, memory_order_relaxed);
    atomic_fetch_sub_explicit(&g.live, b->size, memory_order_relaxed);
    uint64_t pseq = atomic_load_explicit(&g.pseq, memory_order_relaxed);
    struct tp_site_rec *s = tp_site_hot(b->site);
    uint64_t before = atomic_fetch_sub_explicit(&s->live, b->size, memory_order_relaxed);
    site_sync_peak(s, pseq, before);
    tp_site_count_free(b->site);
}

void tp_heap_free(void *p)
{
    uint64_t v;
    if (!atomic_load_explicit(&tracking, memory_order_relaxed))
        return;
    if (!table_remove((uintptr_t)p, &v)) {
        atomic_fetch_add_explicit(&g_unknown_frees, 1, memory_order_relaxed);
        return;
    }
    struct tp_blk b;
    unpack(v, &b);
    account_free(&b);
}

void tp_heap_forget(void *p)
{
    uint64_t v;
    if (table_remove((uintptr_t)p, &v)) {
        struct tp_blk b;
        unpack(v, &b);
        account_free(&b);
    }
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
    uint64_t v;
    if (!atomic_load_explicit(&tracking, memory_order_relaxed) || !table_remove((uintptr_t)p, &v))
        return 0;
    unpack(v, out);
    return 1;
}

void tp_heap_release(const struct tp_blk *b, void *p)
{
    (void)p;
    account_free(b);
}

void tp_heap_restore(void *p, const struct tp_blk *b)
{
    if (table_insert((uintptr_t)p, pack(b)) < 0)
        atomic_fetch_add(&g_dropped, 1);
}

void tp_heap_totals(struct tp_heap_totals *t)
{
    memset(t, 0, sizeof *t);
    t->live = atomic_load(&g.live);
    t->peak = atomic_load(&g.peak);
    t->peak_ns = atomic_load(&g.peak_ns);
    t->pseq = atomic_load(&g.pseq);
    t->peak_op = atomic_load(&g.peak_op);
    t->unknown_frees = atomic_load(&g_unknown_frees);
    t->failed_allocs = atomic_load(&g_failed);
    /* Accumulated in ticks; this thread's unflushed share and the exited threads' are added,
     * other live threads' (under 2^22 ticks each) are not. */
    t->alloc_ns = tp_ticks_to_ns(atomic_load(&g_alloc_ns) + local_alloc_ticks);
    t->dropped = atomic_load(&g_dropped);
    t->early_at_peak = atomic_load(&g.early_at_peak);
}

uint64_t tp_heap_threads(void)
{
    return atomic_load(&g_threads);
}

/* The growth lock across fork (state.c's handlers): a child never starts with a generation
 * half added. */
void tp_heap_fork_prepare(void)
{
    pthread_mutex_lock(&grow_lock);
}

void tp_heap_fork_parent(void)
{
    pthread_mutex_unlock(&grow_lock);
}

void tp_heap_fork_child(void)
{
    /* Only this thread exists now: plain stores are safe. The inherited blocks stay in the
     * table (their frees must be recognised) and stay live; everything counted restarts. The
     * other threads' unflushed occupancy counts are lost: at most a batch each, which only
     * moves the next growth a little (the count is compared signed). */
    pthread_mutex_init(&grow_lock, NULL);
    uint64_t live = atomic_load(&g.live), late = atomic_load(&g.late_live);
    atomic_store(&g.peak, live);
    atomic_store(&g.peak_ns, tp_now_ns());
    atomic_store(&g.peak_op, -1);
    atomic_store(&g.early_at_peak, live > late ? live - late : 0);
    atomic_store(&g.pseq, atomic_load(&g.pseq) + 1);
    atomic_store(&g_unknown_frees, 0);
    atomic_store(&g_failed, 0);
    atomic_store(&g_alloc_ns, 0);
    atomic_store(&g_threads, 1);
    local_alloc_ticks = 0;
    thread_seen = 1;
    tp_sites_fork_child();
    uint32_t n = tp_sites_count();
    for (uint32_t i = 0; i < n; i++) {
        struct tp_site_rec *s = tp_site_hot(i);
        uint64_t l = atomic_load(&s->live);
        atomic_store(&s->peak_live, l);
        atomic_store(&s->at_peak, l);
        atomic_store(&s->seen_pseq, atomic_load(&g.pseq));
    }
}
