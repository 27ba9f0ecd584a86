/* The live-block table's seldom half: its generations and their growth, the per-thread occupancy
 * counts, settling an insert that probed past its home. The hot half, insert and remove, is
 * inline in track/heap/heap.h, which also describes the table. */
#include "track/heap/heap.h"

#include <pthread.h>
#include <sched.h>
#include <stddef.h>

#include "common/pages.h"

#define FIRST_SLOTS 4096 /* 64 KiB: a small live set stays in cache; the table grows with it */
/* Each generation is a quarter bigger than the last. Memory per live block is 16 bytes / 0.7 just
 * before a growth and 16 * growth / 0.7 just after it (the hash spreads a new generation's first
 * entries over all of its pages): doubling swung between 22.9 and 45.7 bytes, a quarter stays
 * under 28.6. The price is more generations for a free to search (a million blocks fill 20, not
 * 9), but only the big ones cost a cache miss each, and the newest, where young blocks are, is
 * searched first (bench/RESULTS.md). */
/* 4,096 slots growing by 1.25 reach 2^36 slots (1 TiB of table) in 76 generations */
#define MAX_GENS 80

struct tp_live_gen tp_live_gens[MAX_GENS];
_Atomic int tp_live_ngens;
TP_TLS int tp_live_used_gen = -1;
TP_TLS int64_t tp_live_used_delta;
TP_TLS int tp_live_exiting;

static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*warn_fn)(const char *fmt, ...);

/* The shared count changes only here, so this is where a generation is seen to fill up. */
void tp_live_used_flush(void)
{
    int64_t d = tp_live_used_delta;
    tp_live_used_delta = 0;
    if (d != 0)
        atomic_fetch_add_explicit(&tp_live_gens[tp_live_used_gen].used, (uint64_t)d,
                                  memory_order_relaxed);
    if (d > 0)
        tp_live_grow(tp_live_used_gen, 0);
}

void tp_live_thread_exit(void)
{
    tp_live_exiting = 1;
    if (tp_live_used_gen >= 0)
        tp_live_used_flush();
}

static int add_gen(uint64_t slots)
{
    int n = atomic_load(&tp_live_ngens);
    if (n >= MAX_GENS)
        return -1;
    size_t bytes = sizeof(struct tp_live_slot) * slots;
    void *m = tp_pages_map(bytes, 1);
    if (!m)
        return -1;
    struct tp_live_gen *G = &tp_live_gens[n];
    G->slots = m;
    G->n = slots;
    G->spans = slots >> TP_LIVE_SPAN_BITS;
    G->batch = slots > 16384 ? 64 : (int64_t)(slots >> 8);
    atomic_store(&G->used, 0);
    atomic_store_explicit(&tp_live_ngens, n + 1, memory_order_release);
    return 0;
}

static uint64_t next_size(uint64_t slots)
{
    return (slots + slots / 4 + 255) & ~(uint64_t)255;
}

int tp_live_init(void (*warn)(const char *fmt, ...))
{
    warn_fn = warn;
    if (atomic_load(&tp_live_ngens) == 0 && add_gen(FIRST_SLOTS) < 0)
        return -1;
    return 0;
}

/* Grow when the newest generation is 70% claimed (as the threads' flushed counts say), or when
 * an insert found no free slot in it at all (force). */
void tp_live_grow(int gi, int force)
{
    struct tp_live_gen *G = &tp_live_gens[gi];
    int64_t used = (int64_t)atomic_load_explicit(&G->used, memory_order_relaxed);
    if (!force && used * 10 < (int64_t)G->n * 7)
        return;
    pthread_mutex_lock(&grow_lock);
    if (atomic_load(&tp_live_ngens) == gi + 1 && add_gen(next_size(G->n)) < 0 && warn_fn)
        warn_fn("cannot grow the heap table");
    pthread_mutex_unlock(&grow_lock);
}

/* Wait for a slot being vacated by another thread to settle (a few instructions, unless that
 * thread lost its core). */
static uintptr_t settled_key(struct tp_live_slot *s)
{
    uintptr_t k;
    for (unsigned n = 0; (k = atomic_load(&s->key)) == TP_LIVE_BUSY; n++) {
        if (n < 64)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
    return k;
}

/* p was placed at distance d from its home h: every slot between must stay non-empty, or lookups
 * stop before p. Checked right to left, after the claim (see live_vacate()): a slot found
 * non-empty stays so while its right neighbour is. If one turned empty meanwhile, p moves there;
 * p is not yet known to the program, so nobody looks it up while it moves.
 *
 * Where p is (at) and the slot looked at (b) are kept apart: past a non-empty slot they differ,
 * and the copy to give up after a move is the one at `at`. Giving up the slot right of b instead
 * (another key's, so the CAS failed) left p in two slots: the program's free took out one, the
 * free of the next block at that address took out the other, charging the old block's size to
 * the old block's site and leaving the new block's record live at exit. */
void tp_live_settle(int gi, uint64_t h, uint64_t d, uintptr_t p, uint64_t val)
{
    struct tp_live_gen *G = &tp_live_gens[gi];
    uint64_t at = d;
    for (uint64_t b = d; b-- > 0;) {
        struct tp_live_slot *s = &G->slots[live_at(G, h + b)];
        uintptr_t k = settled_key(s);
        if (k != TP_LIVE_EMPTY)
            continue;
        if (!atomic_compare_exchange_strong(&s->key, &k, p)) {
            b++; /* filled by someone else meanwhile: look at it again */
            continue;
        }
        atomic_store_explicit(&s->val, val, memory_order_release);
        live_used_add(gi, 1);
        uintptr_t mine = p;
        /* p's own copy: nobody else writes a slot that holds a key the program does not know */
        if (atomic_compare_exchange_strong(&G->slots[live_at(G, h + at)].key, &mine, TP_LIVE_BUSY))
            live_vacate(gi, live_at(G, h + at));
        at = b;
    }
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
