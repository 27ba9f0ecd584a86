/* Call sites: deduplicate the stack above an allocator call.
 *
 * The records live in one dense mmap'ed array (touched in order, so memory grows with the number
 * of sites, not the capacity) and are found through a lock-free open-addressing index. An index
 * entry holds the record number and the top bits of the stack's hash, so that a lookup reads only
 * the index and the frames (both written once), never the records, whose live-byte figures other
 * threads are writing. An insert reserves a record with a fetch-add, fills its frames, then
 * publishes it with a CAS on an empty index slot; a thread that loses the race to an identical
 * stack abandons its record (nframes stays 0 and the report skips it).
 *
 * Allocation, free and byte counts are kept per thread (struct tp_tally, sites.h) and summed by
 * tp_site_get() for the report: on the hot path they cost no locked instruction. */
#include "common/pages.h"
#include "track/livetable.h"
#include "track/sites.h"
#include "track/modmap.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

/* An index entry: record number + 1 in the low IDX_ID_BITS (0 = empty), the hash's top bits above. */
#define IDX_ID_BITS 24
#define IDX_ID_MASK ((1ull << IDX_ID_BITS) - 1)

struct tp_site_rec *tp_site_recs;
static uintptr_t *frames;     /* depth entries per record; unused entries stay 0 */
static _Atomic uint64_t *idx; /* see IDX_ID_BITS */
static uint64_t idx_mask;
static uint32_t cap;
static int depth;
static _Atomic uint32_t nrecs;
static _Atomic uint64_t dropped;
static uint32_t epoch; /* initialisations so far: see struct recent */

static uintptr_t self_lo, self_hi;      /* text of libtprof.so */
static struct tp_site_rec fallback_rec; /* used when the tables cannot be mapped */
static uintptr_t fallback_frame;

/* ---- per-thread tallies ---- */

struct tally_block {
    struct tally_block *next; /* every block ever made, newest first; never unlinked */
    _Atomic int in_use;
    struct tp_tally *rows; /* cap rows */
};

static _Atomic(struct tally_block *) blocks;
static struct tp_tally *spill; /* shared rows for threads without a block: atomic adds */
static _Atomic int
    spill_used; /* the report reads spill's rows only then (their pages are unmapped) */
static struct tp_tally fallback_rows[1];
static pthread_key_t tally_key;
static int have_key;

TP_TLS struct tp_tally *tp_tally_mine;
static TP_TLS struct tally_block *my_block;
static TP_TLS int tally_retired; /* this thread's block was given back at its exit */

int tp_addr_is_ours(uintptr_t a)
{
    return a >= self_lo && a < self_hi;
}

static void *map(size_t bytes)
{
    return tp_pages_map(bytes, 1);
}

/* At a thread's exit (key destructor): its block goes to the next new thread. Allocations the
 * thread still makes afterwards (later destructors) go to the shared rows. */
static void tally_release(void *arg)
{
    struct tally_block *b = arg;
    tp_tally_mine = NULL;
    my_block = NULL;
    tally_retired = 1;
    if (b)
        atomic_store_explicit(&b->in_use, 0, memory_order_release);
}

/* This thread's first count: take a free block or make one. */
static struct tp_tally *tally_acquire(void)
{
    if (tally_retired || !have_key)
        return NULL;
    struct tally_block *b;
    for (b = atomic_load_explicit(&blocks, memory_order_acquire); b; b = b->next) {
        int free_ = 0;
        if (atomic_load_explicit(&b->in_use, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&b->in_use, &free_, 1))
            break;
    }
    if (!b) {
        size_t rows = sizeof(struct tp_tally) * cap;
        unsigned char *m = map(64 + rows);
        if (!m)
            return NULL;
        b = (struct tally_block *)m;
        b->rows = (struct tp_tally *)(m + 64);
        atomic_store(&b->in_use, 1);
        struct tally_block *head = atomic_load(&blocks);
        do
            b->next = head;
        while (!atomic_compare_exchange_weak(&blocks, &head, b));
    }
    if (pthread_setspecific(tally_key, b) != 0) {
        atomic_store(&b->in_use, 0);
        return NULL;
    }
    my_block = b;
    return tp_tally_mine = b->rows;
}

void tp_tally_slow(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes)
{
    struct tp_tally *t = tally_acquire();
    if (t) {
        tally_bump(&t[site].allocs, allocs);
        tally_bump(&t[site].frees, frees);
        tally_bump(&t[site].bytes, bytes);
        return;
    }
    if (!atomic_load_explicit(&spill_used, memory_order_relaxed))
        atomic_store(&spill_used, 1);
    atomic_fetch_add_explicit(&spill[site].allocs, allocs, memory_order_relaxed);
    atomic_fetch_add_explicit(&spill[site].frees, frees, memory_order_relaxed);
    atomic_fetch_add_explicit(&spill[site].bytes, bytes, memory_order_relaxed);
}

void tp_sites_init(int stack, uint64_t max_sites, void (*warn)(const char *fmt, ...))
{
    int saved = errno;
    depth = stack;
    uint64_t want = max_sites;
    if (want > (1u << TP_LIVE_SITE_BITS) - 1)
        want = (1u << TP_LIVE_SITE_BITS) - 1; /* what the live-block table keeps of a site */
    cap = (uint32_t)want;
    uint64_t slots = 1;
    while (slots < 2ull * cap)
        slots <<= 1;
    idx_mask = slots - 1;
    tp_site_recs = map(sizeof *tp_site_recs * cap);
    frames = map(sizeof *frames * (size_t)cap * (size_t)depth);
    idx = map(sizeof *idx * slots);
    spill = map(sizeof *spill * cap);
    if (!tp_site_recs || !frames || !idx || !spill) {
        if (warn)
            warn("cannot map the call-site table; all allocations go to one site");
        cap = 1;
        tp_site_recs = &fallback_rec;
        frames = &fallback_frame;
        spill = fallback_rows;
        depth = 1;
    }
    /* Record 0 is the overflow site: allocations made once the table is full. */
    atomic_store(&nrecs, 1);
    epoch++; /* starts at 1: a thread's zeroed cache entries match no initialisation */
    tp_site_recs[0].nframes = 1;
    frames[0] = 0;
    /* Blocks of an earlier initialisation (the unit tests initialise again) have the old
     * capacity: start a new list. */
    atomic_store(&blocks, NULL);
    atomic_store(&spill_used, 0);
    tp_tally_mine = NULL;
    my_block = NULL;
    tally_retired = 0;
    have_key = pthread_key_create(&tally_key, tally_release) == 0;
    if (cap == 1)
        have_key = 0; /* no tables: every count goes to the one shared row */

    (void)tp_modmap_segment((uintptr_t)&tp_sites_init, &self_lo, &self_hi);
    tp_sites_want_n = depth > 1 && cap > 1 ? depth + TP_STACK_ROOM : 0;
    errno = saved;
}

int tp_sites_want_n;

static inline uint64_t hash_frames(const uintptr_t *f, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

/* Stacks are a few words: a loop beats a call to memcmp. A record's unused frames are 0 (the
 * mapping is zeroed and a record is written once), and no return address is 0, so a shorter
 * stored stack never equals a longer one. */
static inline int same_stack(const uintptr_t *rec, const uintptr_t *f, int n)
{
    for (int i = 0; i < n; i++)
        if (rec[i] != f[i])
            return 0;
    return n == depth || rec[n] == 0;
}

static uint32_t lookup_or_insert(const uintptr_t *f, int n)
{
    uint64_t h = hash_frames(f, n);
    uint64_t tag = h & ~IDX_ID_MASK;
    uint32_t mine = 0; /* reserved record, 0 = none yet */
    for (uint64_t i = 0; i <= idx_mask; i++) {
        _Atomic uint64_t *slot = &idx[(h + i) & idx_mask];
        uint64_t v = atomic_load_explicit(slot, memory_order_acquire);
        if (v) {
            uint32_t id = (uint32_t)(v & IDX_ID_MASK) - 1;
            if ((v & ~IDX_ID_MASK) == tag && same_stack(&frames[(size_t)id * depth], f, n)) {
                if (mine)
                    tp_site_recs[mine].nframes = 0; /* lost the race to an identical stack */
                return id;
            }
            continue;
        }
        if (!mine) {
            mine = atomic_fetch_add(&nrecs, 1);
            if (mine >= cap) {
                atomic_fetch_add(&dropped, 1);
                return 0;
            }
            memcpy(&frames[(size_t)mine * depth], f, sizeof *f * n);
            tp_site_recs[mine].nframes = (uint32_t)n;
        }
        uint64_t expect = 0;
        if (atomic_compare_exchange_strong_explicit(slot, &expect, tag | (mine + 1),
                                                    memory_order_release, memory_order_acquire))
            return mine;
        i--; /* re-examine the slot someone else just filled */
    }
    atomic_fetch_add(&dropped, 1);
    return 0;
}

/* The stacks this thread found last, direct-mapped by their first frame: a loop that allocates
 * from the same few places finds its site by comparing a few words, without hashing the stack
 * and reading the shared index. Entries name the initialisation they belong to (the unit tests
 * initialise again); a site number, once given, never changes. */
#define RECENT        8
#define RECENT_FRAMES 8
struct recent {
    uint32_t epoch, site;
    int n;
    uintptr_t f[RECENT_FRAMES];
};
static TP_TLS struct recent recent[RECENT];

static inline uint32_t recent_slot(uintptr_t f0)
{
    return (uint32_t)((f0 >> 2) ^ (f0 >> 9)) & (RECENT - 1);
}

/* The site of the n frames fr[] (return addresses, as void * from the walk): from this thread's
 * cache when it has them, else from the shared index, copied for it. */
static inline __attribute__((always_inline)) uint32_t find_cached(void *const *fr, int n)
{
    uintptr_t f[TP_MAX_STACK];
    if (n > RECENT_FRAMES) {
        for (int i = 0; i < n; i++)
            f[i] = (uintptr_t)fr[i];
        return lookup_or_insert(f, n);
    }
    struct recent *r = &recent[recent_slot((uintptr_t)fr[0])];
    if (r->epoch == epoch && r->n == n) {
        int i = 0;
        while (i < n && r->f[i] == (uintptr_t)fr[i])
            i++;
        if (i == n)
            return r->site;
    }
    for (int i = 0; i < n; i++)
        f[i] = (uintptr_t)fr[i];
    uint32_t site = lookup_or_insert(f, n);
    if (site != 0) { /* the overflow site: the table was full; a later find may still be too */
        r->epoch = epoch;
        r->n = n;
        r->site = site;
        memcpy(r->f, f, sizeof *f * (size_t)n);
    }
    return site;
}

/* Apart from tp_site_find, so that TPROF_STACK=1 does not pay for this frame's arrays. */
static __attribute__((noinline)) uint32_t find_stack(void *const *raw, int got, void *ra)
{
    int k = 0;
    /* Drop our own frames (the shim, a helper) wherever inlining left them. */
    while (k < got && tp_addr_is_ours((uintptr_t)raw[k]))
        k++;
    int n = got - k < depth ? got - k : depth;
    for (int i = 0; i < n; i++)
        if (!raw[k + i]) {
            n = i;
            break;
        }
    if (n == 0) {
        /* no frames: the shim's return address is the call site */
        return find_cached(&ra, 1);
    }
    return find_cached(raw + k, n);
}

uint32_t tp_site_find(void *const *raw, int got, void *ra)
{
    if (tp_unlikely(cap <= 1))
        return 0;
    if (depth > 1)
        return find_stack(raw, got, ra);
    /* TPROF_STACK=1: the shim's return address is the call site. */
    return find_cached(&ra, 1);
}

uint32_t tp_sites_count(void)
{
    uint32_t n = atomic_load(&nrecs);
    return n > cap ? cap : n;
}

struct tp_site_rec *tp_site_get(uint32_t id)
{
    struct tp_site_rec *r = &tp_site_recs[id];
    uint64_t a = 0, f = 0, b = 0;
    if (atomic_load(&spill_used)) {
        a = atomic_load_explicit(&spill[id].allocs, memory_order_relaxed);
        f = atomic_load_explicit(&spill[id].frees, memory_order_relaxed);
        b = atomic_load_explicit(&spill[id].bytes, memory_order_relaxed);
    }
    for (struct tally_block *k = atomic_load_explicit(&blocks, memory_order_acquire); k;
         k = k->next) {
        a += atomic_load_explicit(&k->rows[id].allocs, memory_order_relaxed);
        f += atomic_load_explicit(&k->rows[id].frees, memory_order_relaxed);
        b += atomic_load_explicit(&k->rows[id].bytes, memory_order_relaxed);
    }
    atomic_store_explicit(&r->allocs, a, memory_order_relaxed);
    atomic_store_explicit(&r->frees, f, memory_order_relaxed);
    atomic_store_explicit(&r->bytes, b, memory_order_relaxed);
    return r;
}

const uintptr_t *tp_site_frames(uint32_t id, uint32_t *n)
{
    *n = tp_site_recs[id].nframes;
    return &frames[(size_t)id * depth];
}

uint64_t tp_sites_dropped(void)
{
    return atomic_load(&dropped);
}

/* Zero a row only if it is not: a row read and left alone stays shared with the parent (no
 * copy-on-write of pages a child that execs at once never needed). */
static void zero_rows(struct tp_tally *rows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct tp_tally *t = &rows[i];
        if (atomic_load_explicit(&t->allocs, memory_order_relaxed) ||
            atomic_load_explicit(&t->frees, memory_order_relaxed) ||
            atomic_load_explicit(&t->bytes, memory_order_relaxed)) {
            atomic_store(&t->allocs, 0);
            atomic_store(&t->frees, 0);
            atomic_store(&t->bytes, 0);
        }
    }
}

void tp_sites_fork_child(void)
{
    /* Only this thread exists now. */
    uint32_t n = tp_sites_count();
    if (atomic_load(&spill_used))
        zero_rows(spill, n);
    for (struct tally_block *b = atomic_load(&blocks); b; b = b->next) {
        zero_rows(b->rows, n);
        if (b != my_block)
            atomic_store(&b->in_use, 0);
    }
}
