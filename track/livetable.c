/* The live-block table: lock-free open addressing (linear probing) over mmap'ed slots. A key is
 * claimed with a CAS; a removal turns it into a tombstone, or into an empty slot where no probe
 * chain needs it (see vacate()). The table never moves: when the newest generation fills up, a
 * new generation is added and takes the inserts; lookups search newest to oldest. Keys are unique
 * among live blocks (the allocator never hands out a live address twice, and the free shim
 * removes the record before the real free), which is what makes this safe without locks.
 *
 * Every locked instruction on a line that another core also writes costs a cache-line transfer,
 * so the table's occupancy, which needs no exact order, is counted per thread and added in by
 * batches (bench/RESULTS.md). */
#include "track/livetable.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>

#include "common/pages.h"
#include "track/runtime.h"

/* Keys: a block's address, or one of these (no block lives at address 0, 1 or 2). */
#define KEY_EMPTY   ((uintptr_t)0)
#define KEY_TOMB    ((uintptr_t)1)
#define KEY_BUSY    ((uintptr_t)2) /* being vacated: becomes TOMB or EMPTY in a few instructions */
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
#define VAL_SIZE_MASK ((1ull << VAL_SIZE_BITS) - 1)
#define VAL_SITE_MASK ((1ull << TP_LIVE_SITE_BITS) - 1)
#define VAL_EARLY     (1ull << 63)

struct slot {
    _Atomic uintptr_t key;
    _Atomic uint64_t val;
};

struct gen {
    struct slot *slots;
    uint64_t n;            /* slots, a multiple of 256 (whole pages) */
    uint64_t spans;        /* n / 64 */
    int64_t batch;         /* per-thread change of `used` kept before it is added in */
    _Atomic uint64_t used; /* slots claimed (live or tombstone), as a signed count: see used_add */
};

static struct gen gens[MAX_GENS];
static _Atomic int ngens;
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*warn_fn)(const char *fmt, ...);

/* The table's occupancy is counted per thread: this thread's change to gens[used_gen].used not
 * yet added in. Flushed every gens[].batch slots (a 4,096-slot generation is over-filled by at
 * most 16 slots per thread before it grows), at the thread's exit, and whenever the thread
 * touches another generation. */
static TP_TLS int used_gen = -1;
static TP_TLS int64_t used_delta;
static TP_TLS int thread_exiting;

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

void tp_live_thread_exit(void)
{
    thread_exiting = 1;
    if (used_gen >= 0)
        used_flush();
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

int tp_live_init(void (*warn)(const char *fmt, ...))
{
    warn_fn = warn;
    if (atomic_load(&ngens) == 0 && add_gen(FIRST_SLOTS) < 0)
        return -1;
    return 0;
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
    if (atomic_load(&ngens) == gi + 1 && add_gen(next_size(G->n)) < 0 && warn_fn)
        warn_fn("cannot grow the heap table");
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

static inline uint64_t pack(const struct tp_blk *b)
{
    uint64_t size = b->size > VAL_SIZE_MASK ? VAL_SIZE_MASK : b->size;
    return size | ((uint64_t)(b->site & VAL_SITE_MASK) << VAL_SIZE_BITS) |
           (b->early ? VAL_EARLY : 0);
}

static inline void unpack(uint64_t v, struct tp_blk *b)
{
    b->size = v & VAL_SIZE_MASK;
    b->site = (uint32_t)((v >> VAL_SIZE_BITS) & VAL_SITE_MASK);
    b->early = (v & VAL_EARLY) != 0;
}

int tp_live_insert(void *ptr, const struct tp_blk *b)
{
    uintptr_t p = (uintptr_t)ptr;
    uint64_t val = pack(b);
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

int tp_live_remove(void *ptr, struct tp_blk *b)
{
    uintptr_t p = (uintptr_t)ptr;
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
            uint64_t val = atomic_load_explicit(&s->val, memory_order_relaxed);
            if (atomic_compare_exchange_strong(&s->key, &k, KEY_BUSY)) {
                vacate(gi, at(G, h + i));
                unpack(val, b);
                return 1;
            }
            return 0; /* someone else removed it: a double free in the program */
        }
    }
    return 0;
}

void tp_live_fork_prepare(void)
{
    pthread_mutex_lock(&grow_lock);
}

void tp_live_fork_parent(void)
{
    pthread_mutex_unlock(&grow_lock);
}

void tp_live_fork_child(void)
{
    /* The inherited blocks stay in the table: their frees must be recognised. The other threads'
     * unflushed occupancy counts are lost: at most a batch each, which only moves the next
     * growth a little (the count is compared signed). */
    pthread_mutex_init(&grow_lock, NULL);
}
