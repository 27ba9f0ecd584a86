/* The heap: live blocks by address, per-site and global figures: the one header of track/heap/ for code outside it. */
#ifndef TPROF_TRACK_HEAP_HEAP
#define TPROF_TRACK_HEAP_HEAP

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "track/runtime.h"

/* The live-block table: for every block the program holds, its address -> (size, site, tag).
 * What the figures are made of is heap.c's business; this only stores and finds.
 *
 * Lock-free open addressing (linear probing) over mmap'ed slots. A key is claimed with a CAS; a
 * removal turns it into a tombstone, or into an empty slot where no probe chain needs it (see
 * live_vacate()). The table never moves: when the newest generation fills up, a new generation is
 * added and takes the inserts; lookups search newest to oldest. Keys are unique among live blocks
 * (the allocator never hands out a live address twice, and the free shim removes the record
 * before the real free), which is what makes this safe without locks.
 *
 * Insert and remove run on every allocation and free: they are inline, below, so that they cost
 * no call of their own (out of line, their calls and the registers they save added 40 of ~800
 * instructions to a malloc/free pair, bench/callgrind_pair.sh). What runs seldom (growth,
 * settling an insert that probed, flushing a thread's counts) is in livetable.c. */
/* A live block as the table knows it. */
struct tp_blk {
    uint64_t size;
    uint32_t site;
    uint32_t tag; /* heap.c's lifetime tag, TP_LIVE_TAG_BITS wide */
};

/* A site number is kept in this many bits of a slot: the site table is capped to fit. Sizes keep
 * 40 bits (a bigger block is recorded as 2^40 - 1 bytes). */
#define TP_LIVE_SITE_BITS 23
/* A tag is kept in the key's top bits, which a user-space address on x86-64 never sets (the
 * kernel maps nothing at or above 2^47 unless asked for it by address): the value word is full. */
#define TP_LIVE_TAG_BITS  16
#define TP_LIVE_TAG_SHIFT 48
#define TP_LIVE_ADDR_MASK ((1ull << TP_LIVE_TAG_SHIFT) - 1)
/* The .site of tp_live_remove()'s answer when the block was not in the table. */
#define TP_LIVE_NONE UINT32_MAX

/* Map the first generation; 0, or -1 when it cannot be mapped. warn (NULL for none) is told when
 * the table cannot grow later. Idempotent. */
int tp_live_init(void (*warn)(const char *fmt, ...));
/* Record block p (not in the table); 0, or -1 when the table is full and cannot grow, or p is
 * an address with the tag's bits set. */
static inline int tp_live_insert(void *p, struct tp_blk b);
/* Take p out and return its record; .site is TP_LIVE_NONE when p was not there (an unknown
 * block, or a double free that another thread won). */
static inline struct tp_blk tp_live_remove(void *p);
/* The calling thread is exiting (a key destructor): add in what it counted locally, and from now
 * on add every change at once. */
void tp_live_thread_exit(void);
/* The growth lock across fork, so that a child never starts with a generation half added. */
void tp_live_fork_prepare(void);
void tp_live_fork_parent(void);
void tp_live_fork_child(void);

/* ---- the inline half: only livetable.c and the two functions above use what follows ---- */

/* Keys: a block's address with its tag above it, or one of these (no block lives at address 0, 1
 * or 2). */
#define TP_LIVE_EMPTY ((uintptr_t)0)
#define TP_LIVE_TOMB  ((uintptr_t)1)
#define TP_LIVE_BUSY  ((uintptr_t)2) /* being vacated: TOMB or EMPTY in a few instructions */

struct tp_live_slot {
    _Atomic uintptr_t key;
    _Atomic uint64_t val; /* size in the low 40 bits, site in the next 23 */
};

struct tp_live_gen {
    struct tp_live_slot *slots;
    uint64_t n;            /* slots, a multiple of 256 (whole pages) */
    uint64_t spans;        /* n / 64 */
    int64_t batch;         /* per-thread change of `used` kept before it is added in */
    _Atomic uint64_t used; /* slots claimed (live or tombstone), as a signed count */
};

extern struct tp_live_gen tp_live_gens[];
extern _Atomic int tp_live_ngens;
/* The table's occupancy is counted per thread: every locked instruction on a line that other
 * cores write costs a cache-line transfer, and the count needs no exact order. This thread's
 * change to tp_live_gens[tp_live_used_gen].used not yet added in: flushed every .batch slots (a
 * 4,096-slot generation is over-filled by at most 16 slots per thread before it grows), at the
 * thread's exit, and whenever the thread touches another generation. */
extern TP_TLS int tp_live_used_gen;
extern TP_TLS int64_t tp_live_used_delta;
extern TP_TLS int tp_live_exiting;

/* The seldom halves, in livetable.c. */
void tp_live_used_flush(void);
void tp_live_grow(int gi, int force);
void tp_live_settle(int gi, uint64_t h, uint64_t d, uintptr_t p, uint64_t val);

static inline void live_used_add(int gi, int64_t d)
{
    if (tp_unlikely(tp_live_used_gen != gi)) {
        if (tp_live_used_gen >= 0)
            tp_live_used_flush();
        tp_live_used_gen = gi;
    }
    tp_live_used_delta += d;
    int64_t b = tp_live_gens[gi].batch;
    if (tp_live_used_delta >= b || tp_live_used_delta <= -b || tp_unlikely(tp_live_exiting))
        tp_live_used_flush();
}

/* Keep the program's locality, but not its runs. The low 6 bits of a slot number are address bits
 * 4-9, the rest a hash of the 1 KiB span above: blocks allocated close together share a 64-slot
 * run of the table (its lines are touched with the program's own locality; a hash of the whole
 * address made every insert and remove a cache miss in a large table), and spans land
 * independently. With the address alone (bits 4 and up) a dense series of 16-byte blocks filled
 * one run as long as the series, and every lookup of a block in an older generation whose home
 * fell inside it probed to its end: freeing 800,000 such blocks took minutes. */
#define TP_LIVE_SPAN_BITS 6
static inline uint64_t live_hash(uintptr_t p, const struct tp_live_gen *G)
{
    uint64_t mix = (uint64_t)(p >> (4 + TP_LIVE_SPAN_BITS)) * 0x9E3779B97F4A7C15ull;
    uint64_t span = (uint64_t)(((unsigned __int128)mix * G->spans) >> 64);
    return (span << TP_LIVE_SPAN_BITS) | ((p >> 4) & ((1u << TP_LIVE_SPAN_BITS) - 1));
}

/* i + 1 and i - 1 around the ring of G's slots; live_at(G, i) for an i below 2n. */
static inline uint64_t live_at(const struct tp_live_gen *G, uint64_t i)
{
    return i >= G->n ? i - G->n : i;
}
static inline uint64_t live_next(const struct tp_live_gen *G, uint64_t i)
{
    return i + 1 == G->n ? 0 : i + 1;
}
static inline uint64_t live_prev(const struct tp_live_gen *G, uint64_t i)
{
    return i == 0 ? G->n - 1 : i - 1;
}

#define TP_LIVE_SIZE_BITS 40
#define TP_LIVE_SIZE_MASK ((1ull << TP_LIVE_SIZE_BITS) - 1)
#define TP_LIVE_SITE_MASK ((1ull << TP_LIVE_SITE_BITS) - 1)

static inline uint64_t live_pack(struct tp_blk b)
{
    uint64_t size = b.size > TP_LIVE_SIZE_MASK ? TP_LIVE_SIZE_MASK : b.size;
    return size | ((uint64_t)(b.site & TP_LIVE_SITE_MASK) << TP_LIVE_SIZE_BITS);
}

static inline struct tp_blk live_unpack(uint64_t v, uintptr_t key)
{
    struct tp_blk b = {v & TP_LIVE_SIZE_MASK,
                       (uint32_t)((v >> TP_LIVE_SIZE_BITS) & TP_LIVE_SITE_MASK),
                       (uint32_t)(key >> TP_LIVE_TAG_SHIFT)};
    return b;
}

/* Slot i of generation gi is TP_LIVE_BUSY, ours: give it up. A slot may become empty only while
 * its right neighbour is empty, else a key further right could be cut off from its home. The
 * neighbour is read after the slot was made busy (a locked instruction), and an insert reads the
 * slots left of its own after claiming it (tp_live_settle()), so of a vacate and an insert racing
 * on two neighbouring slots, at least one sees the other: either this finds the neighbour taken
 * and leaves a tombstone, or the insert finds the slot empty and moves left into it. Then the
 * same for a tombstone to the left. Without this every address the allocator ever handed out
 * keeps a claimed slot, and the table grows with the allocations made instead of the blocks live
 * (1,024 live blocks churned 10^6 times: 7 generations, 8 MiB of cache-cold slots). */
static inline __attribute__((always_inline)) void live_vacate(int gi, uint64_t i)
{
    struct tp_live_gen *G = &tp_live_gens[gi];
    for (uint64_t n = 0;; n++) {
        struct tp_live_slot *s = &G->slots[i];
        if (n >= G->n || atomic_load(&G->slots[live_next(G, i)].key) != TP_LIVE_EMPTY) {
            atomic_store_explicit(&s->key, TP_LIVE_TOMB, memory_order_release);
            return;
        }
        atomic_store_explicit(&s->key, TP_LIVE_EMPTY, memory_order_release);
        live_used_add(gi, -1);
        uintptr_t t = TP_LIVE_TOMB;
        i = live_prev(G, i);
        /* Looked at first: the locked instruction only for a tombstone (most frees find a key or
         * an empty slot there). One that turns into a tombstone just after is left for an insert
         * to reuse, as when the CAS loses a race. */
        if (atomic_load_explicit(&G->slots[i].key, memory_order_relaxed) != TP_LIVE_TOMB ||
            !atomic_compare_exchange_strong(&G->slots[i].key, &t, TP_LIVE_BUSY))
            return;
    }
}

static inline __attribute__((always_inline)) int tp_live_insert(void *ptr, struct tp_blk b)
{
    uintptr_t a = (uintptr_t)ptr; /* hashed: the tag is not part of where p lives */
    if (tp_unlikely(a > TP_LIVE_ADDR_MASK))
        return -1;
    uintptr_t p = a | (uintptr_t)b.tag
                          << TP_LIVE_TAG_SHIFT; /* its low 16 bits: the rest shift out */
    uint64_t val = live_pack(b);
    for (int attempt = 0; attempt < 4; attempt++) {
        int gi = atomic_load_explicit(&tp_live_ngens, memory_order_acquire) - 1;
        struct tp_live_gen *G = &tp_live_gens[gi];
        uint64_t h = live_hash(a, G);
        for (uint64_t i = 0; i < G->n; i++) {
            struct tp_live_slot *s = &G->slots[live_at(G, h + i)];
            uintptr_t k = atomic_load_explicit(&s->key, memory_order_relaxed);
            if (k != TP_LIVE_EMPTY && k != TP_LIVE_TOMB)
                continue; /* a key, or busy (it will not become ours to use: pass it) */
            if (atomic_compare_exchange_strong(&s->key, &k, p)) {
                /* Nobody reads the value before the program frees p, which it can only do
                 * after malloc returned it, i.e. after this store. */
                atomic_store_explicit(&s->val, val, memory_order_release);
                if (k == TP_LIVE_EMPTY)
                    live_used_add(gi,
                                  1); /* may add the next generation: see tp_live_used_flush() */
                if (i > 0)
                    tp_live_settle(gi, h, i, p, val);
                return 0;
            }
            i--; /* the slot changed under us: look at it again */
        }
        tp_live_grow(gi, 1);
    }
    return -1;
}

static inline __attribute__((always_inline)) struct tp_blk tp_live_remove(void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    struct tp_blk none = {0, TP_LIVE_NONE, 0};
    for (int gi = atomic_load_explicit(&tp_live_ngens, memory_order_acquire) - 1; gi >= 0; gi--) {
        struct tp_live_gen *G = &tp_live_gens[gi];
        uint64_t h = live_hash(p, G);
        for (uint64_t i = 0; i < G->n; i++) {
            struct tp_live_slot *s = &G->slots[live_at(G, h + i)];
            uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
            if (k == TP_LIVE_EMPTY)
                break;
            if ((k & TP_LIVE_ADDR_MASK) != p)
                continue; /* another key, a tombstone, or busy (never p: p is live) */
            uint64_t val = atomic_load_explicit(&s->val, memory_order_relaxed);
            uintptr_t key = k;
            if (atomic_compare_exchange_strong(&s->key, &k, TP_LIVE_BUSY)) {
                live_vacate(gi, live_at(G, h + i));
                return live_unpack(val, key);
            }
            return none; /* someone else removed it: a double free in the program */
        }
    }
    return none;
}

/* Heap accounting: the global live and peak figures, the per-site figures (live, peak, live at
 * the global peak), the threads that allocate and the time spent in the allocator, over the
 * table of live blocks (track/heap/livetable.c). Called by the malloc shims with the recursion guard held. */
/* op_now: the op running on the calling thread, -1 for none (asked at each new global peak, to
 * name the op it happened in; NULL: peaks name no op). warn: a line on stderr when a table
 * cannot be mapped (NULL: none). Kept as pointers so that the accounting needs nothing from the
 * layers that track ops or own the process's life cycle. */
void tp_heap_init(int (*op_now)(void), void (*warn)(const char *fmt, ...));
/* Whether blocks are being recorded (0 when the table could not be mapped). */
int tp_heap_tracking(void);

/* Record block p of n bytes; 1 if it was recorded, 0 if not (accounting off, or the table is
 * full). ra: the shim's return address; raw, got: the frames tp_unwind gave in the shim
 * (tp_sites_want(), sites.h), got 0 for none. The allocator's time is added apart
 * (tp_heap_add_alloc_ns): one call in 16 has any. */
int tp_heap_alloc(void *p, size_t n, void *ra, void *const *raw, int got);
/* The block's recorded size, 0 when it was not recorded. */
size_t tp_heap_free(void *p);
void tp_heap_failed(uint64_t ns);
void tp_heap_unknown_free(void);
void tp_heap_add_alloc_ns(uint64_t ns);
/* Remove p without recording a free (used when recording is off). */
void tp_heap_forget(void *p);
/* realloc: take p's record out (1 if known), then either release it as freed or restore it. */
int tp_heap_take(void *p, struct tp_blk *out);
void tp_heap_release(const struct tp_blk *b, void *p);
void tp_heap_restore(void *p, const struct tp_blk *b);

/* The unit of lifetime (a step, or an outermost op call: track/units.c decides) ended. A block
 * live at the peak is transient when it is freed before the unit it belongs to ends: the unit
 * running when it was allocated, or, allocated between units, the next one to end. */
void tp_heap_unit_end(void);

/* How the malloc shims estimate the allocator's time (preload/hook/hook_malloc.c says why): calls for
 * TP_ALLOC_BIG bytes or more are all timed; of the others one in 16 is, and counts 16 times
 * unless it took TP_ALLOC_LONG_TICKS or more (2^17 ticks: 26 to 131 us at a TSC of 1 to 5 GHz,
 * 131 us on CLOCK_MONOTONIC), which counts once. tp_heap_alloc_method() says so for the report's
 * memory.alloc_ns_method. */
#define TP_ALLOC_BIG        (64 * 1024)
#define TP_ALLOC_LONG_TICKS (1ull << 17)
const char *tp_heap_alloc_method(void);

/* Figures for the report. */
struct tp_heap_totals {
    uint64_t live, peak, peak_ns, pseq;
    int peak_op;
    uint64_t unknown_frees, failed_allocs, alloc_ns, dropped;
    /* Of the peak, the bytes freed before the unit they belong to ended; 0 while that unit has
     * not ended (then all of the peak outlived it so far). */
    uint64_t transient_at_peak;
    /* Live bytes when the last unit ended (0 before one did): what outlived it (track/out/series.c) */
    uint64_t live_at_unit_end;
};
void tp_heap_totals(struct tp_heap_totals *t);
/* Live bytes now, and in *floor those when the last unit ended (track/out/series.c's points):
 * two loads, async-signal-safe. */
uint64_t tp_heap_live(uint64_t *floor);
/* Reset after fork in the child: the inherited heap stays live, counters start again. */
void tp_heap_fork_prepare(void);
void tp_heap_fork_parent(void);
void tp_heap_fork_child(void);

/* ggml's backend buffers by role (track/heap/ggmlbuf.c): which of ggml's buffer functions name
 * is, watched through the PLT without being timed. */
enum { TP_GGMLBUF_NONE, TP_GGMLBUF_ALLOC, TP_GGMLBUF_USAGE, TP_GGMLBUF_FREE };
int tp_ggmlbuf_call(const char *name);
/* ggml_backend_buft_alloc_buffer returned buffer; its call began at t_ns (CLOCK_MONOTONIC, so
 * that the heap block made inside it is within the buffer's life). */
void tp_ggmlbuf_alloc(uintptr_t buffer, uint64_t t_ns);
/* ggml_backend_buffer_set_usage(buffer, usage), before it runs. */
void tp_ggmlbuf_usage(uintptr_t buffer, int usage);
/* ggml_backend_buffer_free(buffer), before it runs. */
void tp_ggmlbuf_free(uintptr_t buffer);
/* The report's memory.ggml_buffers; peak_at: the heap peak's time (CLOCK_MONOTONIC, 0: none). */
struct tp_report;
void tp_ggmlbuf_collect(struct tp_report *r, uint64_t peak_at);
/* In a fork child. */
void tp_ggmlbuf_fork_child(void);

/* ---- the program's mappings (track/heap/maps.c) ----
 * What the program maps with its own mmap calls (an allocator's mmaps for large blocks are made
 * inside libc, never through the hooks, and are heap), by call site and file; tprof's own
 * mappings, so that the ledger can name them; the threads' stacks. Each call takes a spin lock
 * that is tried, never waited for long: a call that finds it held for long (a signal handler
 * that interrupted its holder) is counted as lost. */
/* A mapping the program made: prot, flags and offset as given to mmap; fd's file (-1: anonymous);
 * site: its call site (track/sites), 0 for none. */
void tp_maps_mmap(uintptr_t p, size_t len, int prot, int flags, int fd, uint64_t offset,
                  uint32_t site);
/* A mapping of tprof's own (its tables, its stubs, the ELF files it reads). */
void tp_maps_own(uintptr_t p, size_t len);
void tp_maps_munmap(uintptr_t p, size_t len);
/* mremap moved or resized [old, old + oldlen) to [p, p + len): a mapping of the program's or
 * tprof's keeps its owner. */
void tp_maps_mremap(uintptr_t old, size_t oldlen, uintptr_t p, size_t len);
void tp_maps_mprotect(uintptr_t p, size_t len, int prot);
/* madvise(MADV_DONTNEED or MADV_FREE): counted for the mapping's site. */
void tp_maps_advise(uintptr_t p, size_t len);
/* A thread of the program started, its stack pointer near sp. */
void tp_maps_stack(uintptr_t sp);
void tp_maps_fork_child(void);

/* One range of the table, sorted by lo; agg: the program's call site and file (an index of
 * tp_maps_agg), TP_MAPS_OWN for tprof's. */
#define TP_MAPS_OWN (-1)
struct tp_map {
    uintptr_t lo, hi;
    int agg;
};
/* One call site and file of the program's mappings. */
struct tp_map_agg {
    uint32_t site;
    int file;        /* 1: a file, 0: anonymous */
    char path[192];  /* the file's, "" for anonymous */
    uint64_t offset; /* of its first mapping */
    uint64_t maps, unmaps, mapped, live, advised;
    int prot, flags; /* of its latest mapping */
};
/* The first of the n sorted ranges at m whose end is past p (n when none). */
size_t tp_maps_after(const struct tp_map *m, size_t n, uintptr_t p);
/* Copies of the tables, sorted, into the caller's arrays (at most cap each); the count. */
size_t tp_maps_copy(struct tp_map *out, size_t cap);
size_t tp_maps_aggs(struct tp_map_agg *out, size_t cap);
/* The stack pointers noted, sorted, at most cap. */
size_t tp_maps_stacks(uintptr_t *out, size_t cap);
/* Calls whose mapping was not kept (the tables full, the lock held). */
uint64_t tp_maps_lost(void);
#define TP_MAPS_MAX_AGGS 256

/* ---- the kernel's account (track/heap/smaps.c) ---- */
/* One area of /proc/self/smaps: its range, permissions ("rw-p"), file offset, path ("" for
 * anonymous memory, "[heap]", "[stack]", ...), and resident and proportional bytes. */
struct tp_vma {
    uintptr_t lo, hi;
    uint64_t offset, rss, pss;
    char perms[5];
    char path[256];
};
/* Each area to fn, in address order; 0, or -1 when smaps cannot be read. */
int tp_smaps_read(void (*fn)(void *ctx, const struct tp_vma *v), void *ctx);
/* Resident bytes now (/proc/self/statm), 0 unknown. */
uint64_t tp_statm_rss(void);

/* ---- the memory ledger (track/heap/ledger.c) ----
 * RSS split into its parts from /proc/self/smaps, read at a bounded rate: when an outermost op
 * call begins or ends, before a large block is freed or the program unmaps memory, and at the
 * report. */
extern _Atomic uint64_t tp_ledger_due; /* ticks from which an op's boundary may read */
/* From the constructor, a safe point (no signal handler, no allocator lock): what the readings
 * need to know of libtprof.so itself. Readings before it are made all the same, but none from
 * munmap or madvise (a signal handler may call them). */
void tp_ledger_start(void);
void tp_ledger_poll(uint64_t ticks);
/* Is a reading due at ticks (tp_ticks())? */
static inline int tp_ledger_due_at(uint64_t ticks)
{
    return ticks >= atomic_load_explicit(&tp_ledger_due, memory_order_relaxed);
}
/* At an outermost op call's end: ticks, tp_ticks() read there. (At its begin the reading is made
 * before the op's clock starts.) */
static inline void tp_ledger_tick(uint64_t ticks)
{
    if (tp_ledger_due_at(ticks))
        tp_ledger_poll(ticks);
}
/* The program is about to give memory back: a free of bytes of heap (still counted live in the
 * ledger, as they are resident until then; 0 for an unmap, whose mapping is still there). from_free: the
 * malloc hooks' (the allocator's figures may be asked); 0 from munmap or madvise, which a
 * signal handler may call. */
void tp_ledger_release(uint64_t bytes, int from_free);
/* The release threshold: frees and unmaps smaller than this never read. */
#define TP_LEDGER_RELEASE (1u << 20)
/* The report's memory.ledger, mappings and ledger_series, reading once more now. The rows add
 * up to memory.peak_rss_bytes (the kernel's high-water mark, raised to the highest reading's
 * RSS if that is higher). frames: a mapping's call site's frames. */
struct tp_mapping;
void tp_ledger_collect(struct tp_report *r, void (*frames)(uint32_t site, struct tp_mapping *out));
void tp_ledger_fork_child(void);

#endif
