/* Call sites: deduplicate the stack above an allocator call.
 *
 * The records live in dense arrays mapped for the most sites the table may ever hold (touched in
 * order, so memory grows with the number of sites, not the capacity; they never move), and are
 * found through a lock-free open-addressing index. An index entry holds the record number and bits
 * of the stack's hash, so that a lookup reads only the index and the frames (all written once),
 * never the records, whose live-byte figures other threads are writing. A record's frames are two
 * nodes of the frame trees (stacktrie.h: 8 bytes, the frames shared with other sites). An insert
 * reserves a record with a fetch-add, finds or makes its nodes, then publishes it with a CAS on an
 * empty index slot; a thread that loses the race to an identical stack abandons its record (its
 * stack stays 0).
 *
 * The index grows. Records may be reserved up to a limit; the thread that passes it takes the
 * growth lock (never taken on a lookup) and, within the memory budget, raises the limit and, past
 * three quarters full, moves the index to one twice the size: it sets the old one's successor,
 * turns each empty slot of the old one into MOVED with a CAS and copies each entry it meets, then
 * publishes the new one. Entries are never removed, so no slot before an entry on its probe path is
 * MOVED: a lookup in the old index finds every stack it holds, and one that meets MOVED goes on in
 * the successor, as does an insert that loses its CAS to MOVED; a stack is published in one index
 * only. Old indexes stay mapped (a lookup may still be reading one), but their pages but the first
 * are given back once the move is done: they then read as MOVED (siteindex.c). Past the budget,
 * new stacks go to site 0, the overflow site, and the report says what went there.
 *
 * Allocation, free and byte counts are kept per thread (struct tp_tally, sitetally.c) and summed by
 * tp_site_get() for the report: on the hot path they cost no locked instruction. */
#include "common/pages.h"
#include "track/heap/heap.h"
#include "track/sym/sym.h"
#include "track/sites/siteindex.h"
#include "track/sites/sites.h"
#include "track/sites/stacktrie.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>

struct tp_site_rec *tp_site_recs;
static uint64_t *sref;       /* each record's stack in the frame trees, 0 = record unused */
static uint16_t *hhi;        /* the top 16 bits of each record's stack hash (siteindex.h) */
static uint32_t cap;         /* records mapped; the table never holds more */
static _Atomic uint32_t lim; /* records that may be used now: past it, make_room() */
static _Atomic(struct sidx *) cur;
static int depth;
static _Atomic uint32_t nrecs;
static _Atomic uint64_t dropped;
static _Atomic int full; /* a tp_sites_limit other than TP_SITES_GROWING: no new site */
static uint32_t epoch;   /* initialisations so far: see struct recent */
static uint64_t max_sites_cfg, budget_cfg;
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t self_lo, self_hi;      /* text of libtprof.so */
static struct tp_site_rec fallback_rec; /* used when the tables cannot be mapped */
static uint64_t fallback_sref;

int tp_addr_is_ours(uintptr_t a)
{
    return a >= self_lo && a < self_hi;
}

/* The frame trees' room for n sites: a new site makes no node or a few (stacktrie.c), so
 * TRIE_NODES_PER_SITE a site on average before the trees say they are full. */
#define TRIE_NODES_PER_SITE 4
static uint32_t trie_nodes(uint32_t n)
{
    uint64_t m = (uint64_t)n * TRIE_NODES_PER_SITE + 64;
    return m < TP_TRIE_MAX_NODES ? (uint32_t)m : TP_TRIE_MAX_NODES;
}

/* Map the records' arrays for n sites, halving n down to want_min when the address space is
 * short (a reserve-only mapping costs no memory until touched, but counts against RLIMIT_AS). */
static int map_records(uint32_t n, uint32_t want_min)
{
    for (; n > 0 && n >= want_min; n /= 2) {
        tp_site_recs = tp_pages_map(sizeof *tp_site_recs * n, 1);
        sref = tp_pages_map(sizeof *sref * n, 1);
        hhi = tp_pages_map(sizeof *hhi * n, 1);
        if (tp_site_recs && sref && hhi && tp_trie_init(trie_nodes(n)) == 0 &&
            tp_tally_init(n) == 0) {
            cap = n;
            return 0;
        }
        tp_pages_unmap(tp_site_recs, sizeof *tp_site_recs * n);
        tp_pages_unmap(sref, sizeof *sref * n);
        tp_pages_unmap(hhi, sizeof *hhi * n);
    }
    return -1;
}

void tp_sites_init(int stack, uint64_t max_sites, uint64_t budget,
                   void (*warn)(const char *fmt, ...))
{
    int saved = errno;
    depth = stack;
    max_sites_cfg = max_sites;
    budget_cfg = budget;
    /* what the live-block table keeps of a site, and the index of its number */
    uint64_t want =
        (1u << TP_LIVE_SITE_BITS) - 1 < IDX_MAX_RECS ? (1u << TP_LIVE_SITE_BITS) - 1 : IDX_MAX_RECS;
    if (max_sites && max_sites < want)
        want = max_sites;
    /* The arrays are reserved for the whole capacity (a thread's count rows too): under a limit
     * on the address space, a sixteenth of it at most, so that the program's own mappings keep
     * the rest (with 4 threads' rows). */
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        uint64_t per = sizeof *tp_site_recs + sizeof *sref + sizeof *hhi +
                       TRIE_NODES_PER_SITE * (sizeof(uintptr_t) + sizeof(uint32_t)) +
                       5 * sizeof(struct tp_tally) + sizeof(struct tp_tally_wide);
        if (want > rl.rlim_cur / 16 / per)
            want = rl.rlim_cur / 16 / per;
    }
    tp_sidx_reset();
    struct sidx *x = tp_sidx_new(IDX_MIN_BITS);
    uint32_t first = (uint32_t)(x ? x->nslots / 4 * 3 : 0);
    if (!x || map_records((uint32_t)want, want < first ? (uint32_t)want : first) < 0) {
        if (warn)
            warn("cannot map the call-site table; all allocations go to one site");
        cap = 1;
        tp_site_recs = &fallback_rec;
        sref = &fallback_sref;
        depth = 1;
        (void)tp_trie_init(0);
        (void)tp_tally_init(1);
    }
    atomic_store(&cur, x);
    atomic_store(&lim, first < cap ? first : cap);
    atomic_store(&full, TP_SITES_GROWING);
    atomic_store(&dropped, 0);
    /* Record 0 is the overflow site: allocations made once the table is full. */
    atomic_store(&nrecs, 1);
    epoch++; /* starts at 1: a thread's zeroed cache entries match no initialisation */
    sref[0] = tp_trie_ref(TP_TRIE_OVERFLOW, TP_TRIE_OUTER);
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

uint64_t tp_sites_budget(uint64_t rss)
{
    return rss / 20 > TP_SITES_BUDGET_MIN ? rss / 20 : TP_SITES_BUDGET_MIN;
}

static uint64_t budget_now(void)
{
    if (budget_cfg)
        return budget_cfg;
    struct rusage ru;
    uint64_t rss = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
    return tp_sites_budget(rss);
}

/* What the table holds in memory: records used (dense), indexes (touched all over), the frame
 * trees, threads' rows. */
static void bytes_of(uint32_t used, struct tp_sites_bytes *b)
{
    b->sites = used;
    b->records = (uint64_t)used * sizeof *tp_site_recs;
    b->stacks = (uint64_t)used * sizeof *sref;
    b->hashes = (uint64_t)used * sizeof *hhi;
    b->index = tp_sidx_kept();
    b->trie = tp_trie_resident();
    b->nodes = tp_trie_nodes();
    b->tally = tp_tally_resident(used);
}

static uint64_t resident(uint32_t used)
{
    struct tp_sites_bytes b;
    bytes_of(used, &b);
    return b.records + b.stacks + b.hashes + b.index + b.trie + b.tally;
}

void tp_sites_bytes(struct tp_sites_bytes *b)
{
    pthread_mutex_lock(&grow_lock);
    bytes_of(tp_sites_count(), b);
    pthread_mutex_unlock(&grow_lock);
}

/* Record `id` is past the limit: raise it within the budget, or say the table is full. The
 * limit moves on by a sixteenth of the index at a time, the budget checked each time, so the
 * table passes the budget by at most that many sites' worth. Returns whether id may be used. */
static int make_room(uint32_t id)
{
    pthread_mutex_lock(&grow_lock);
    uint32_t l = atomic_load(&lim);
    while (id >= l && atomic_load(&full) == TP_SITES_GROWING) {
        struct sidx *x = atomic_load(&cur);
        uint64_t budget = budget_now(), have = resident(l);
        uint32_t step = (uint32_t)(x->nslots / 16);
        if (l >= cap) {
            atomic_store(&full, cap < max_sites_cfg || !max_sites_cfg ? TP_SITES_NO_MEMORY
                                                                      : TP_SITES_MAX_SITES);
            break;
        }
        if (have >= budget) {
            atomic_store(&full, TP_SITES_BUDGET);
            break;
        }
        /* Three quarters full at most: a lookup then probes a few slots of one or two lines
         * (on its thread's cache misses only), and the indexes cost 5 to 11 bytes a site. */
        uint64_t room = x->nslots / 4 * 3;
        if ((uint64_t)l + step > room) {
            if (have + idx_bytes(2 * x->nslots) <= budget && tp_sidx_grow(&cur, hhi) == 0)
                continue;
            if (l >= room) {
                atomic_store(&full, TP_SITES_BUDGET);
                break;
            }
        }
        uint64_t n = (uint64_t)l + step;
        n = n < room ? n : room;
        l = (uint32_t)(n < cap ? n : cap);
        atomic_store_explicit(&lim, l, memory_order_release);
    }
    pthread_mutex_unlock(&grow_lock);
    return id < l;
}

static uint32_t reserve(void)
{
    if (atomic_load_explicit(&full, memory_order_relaxed) != TP_SITES_GROWING)
        return 0;
    uint32_t id = atomic_fetch_add(&nrecs, 1);
    if (id >= atomic_load_explicit(&lim, memory_order_acquire) && !make_room(id))
        return 0;
    return id;
}

/* A record for the new stack f[0..n) of hash h, its frames in the trees, not yet published; 0
 * when the table is full. Its nodes are found or made first: a record is reserved only then, so
 * that a thread that finds the table full while another fills the last record waits only for that
 * record's few stores, not for the trees. */
static uint32_t new_record(const uintptr_t *f, int n, uint64_t h)
{
    uint64_t ref = 0;
    uint32_t id = 0;
    if (atomic_load_explicit(&full, memory_order_relaxed) == TP_SITES_GROWING) {
        ref = tp_trie_put(f, n);
        if (!ref && tp_trie_full()) { /* else a signal handler's malloc inside tp_trie_put */
            int g = TP_SITES_GROWING;
            atomic_compare_exchange_strong(&full, &g, TP_SITES_NO_MEMORY);
        }
    }
    if (ref)
        id = reserve();
    if (!id) {
        atomic_fetch_add(&dropped, 1);
        return 0;
    }
    sref[id] = ref;
    hhi[id] = (uint16_t)(h >> 48);
    return id;
}

/* The site of stack f[0..n) in index x and its successors: found, or published now. */
static uint32_t lookup_or_insert(const uintptr_t *f, int n)
{
    uint64_t h = hash_frames(f, n);
    uint32_t tag = idx_tag(h);
    uint32_t mine = 0; /* reserved record, 0 = none yet */
    struct sidx *x = atomic_load_explicit(&cur, memory_order_acquire);
    for (;;) {
        uint64_t mask = x->nslots - 1, pos = h >> x->shift, i;
        for (i = 0; i <= mask; i++) {
            _Atomic uint32_t *slot = &x->slots[(pos + i) & mask];
            uint32_t v = atomic_load_explicit(slot, memory_order_acquire);
            if (v == IDX_MOVED)
                break;
            if (v != IDX_EMPTY) {
                uint32_t id = (v & IDX_ID_MASK) - 1;
                if ((v & ~IDX_ID_MASK) == tag && tp_trie_same(sref[id], f, n)) {
                    if (mine)
                        sref[mine] = 0; /* lost the race to an identical stack */
                    return id;
                }
                continue;
            }
            if (!mine && !(mine = new_record(f, n, h)))
                return 0;
            uint32_t expect = IDX_EMPTY;
            if (atomic_compare_exchange_strong_explicit(slot, &expect, tag | (mine + 1),
                                                        memory_order_release, memory_order_acquire))
                return mine;
            i--; /* re-examine the slot someone else just filled (or moved) */
        }
        struct sidx *next = atomic_load_explicit(&x->next, memory_order_acquire);
        if (i > mask || !next) { /* a full index (not reached: it is grown at 3/4) */
            atomic_fetch_add(&dropped, 1);
            return 0;
        }
        x = next;
    }
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
    uint32_t n = atomic_load(&nrecs), l = atomic_load(&lim);
    return n > l ? l : n;
}

void tp_site_get(uint32_t id, struct tp_site_sum *o)
{
    struct tp_site_rec *r = &tp_site_recs[id];
    o->live = atomic_load_explicit(&r->live, memory_order_relaxed);
    o->peak_live = atomic_load_explicit(&r->peak_live, memory_order_relaxed);
    o->at_peak = atomic_load_explicit(&r->at_peak, memory_order_relaxed);
    o->seen_pseq = atomic_load_explicit(&r->seen_pseq, memory_order_relaxed);
    o->nframes = sref[id] ? (uint32_t)tp_trie_frames(sref[id]) : 0;
    tp_tally_sum(id, &o->allocs, &o->frees, &o->bytes);
}

const uintptr_t *tp_site_frames(uint32_t id, uint32_t *n)
{
    static uintptr_t buf[TP_MAX_STACK];
    *n = sref[id] ? (uint32_t)tp_trie_read(sref[id], buf) : 0;
    return buf;
}

uint64_t tp_sites_dropped(void)
{
    return atomic_load(&dropped);
}

void tp_sites_state(struct tp_sites_state *st)
{
    /* Not waited for: a report written from a signal handler may have interrupted its holder. */
    int locked = pthread_mutex_trylock(&grow_lock) == 0;
    struct sidx *x = atomic_load(&cur);
    st->limit = (enum tp_sites_limit)atomic_load(&full);
    st->budget = budget_now();
    st->cap = atomic_load(&lim);
    st->index_slots = x ? x->nslots : 0;
    st->resident = x && locked ? resident(tp_sites_count()) : 0;
    if (locked)
        pthread_mutex_unlock(&grow_lock);
}

void tp_sites_fork_prepare(void)
{
    pthread_mutex_lock(&grow_lock);
    tp_trie_fork_prepare();
}

void tp_sites_fork_parent(void)
{
    tp_trie_fork_parent();
    pthread_mutex_unlock(&grow_lock);
}

void tp_sites_fork_child(void)
{
    /* Only this thread exists now. */
    pthread_mutex_init(&grow_lock, NULL);
    tp_trie_fork_child();
    tp_tally_fork_child(tp_sites_count());
}
