/* Call sites: capture the stack above the allocator call and deduplicate it.
 *
 * The records live in one dense mmap'ed array (touched in order, so memory grows with the number
 * of sites, not the capacity) and are found through a lock-free open-addressing index of record
 * numbers. An insert reserves a record with a fetch-add, fills it, then publishes it with a CAS
 * on an empty index slot; a thread that loses the race to an identical stack abandons its record
 * (nframes stays 0 and the report skips it). */
#include "sites.h"

#include <dlfcn.h>
#include <errno.h>
#define UNW_LOCAL_ONLY /* the local-only API: _UL* symbols of libunwind.so */
#include <libunwind.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define SKIP_MAX 6 /* our own frames above the program's: capture, shim, maybe a helper */

static struct tp_site_rec *recs;
static uintptr_t *frames;     /* depth entries per record */
static _Atomic uint32_t *idx; /* record number + 1, 0 = empty */
static uint64_t idx_mask;
static uint32_t cap;
static int depth;
static _Atomic uint32_t nrecs;
static _Atomic uint64_t dropped;

static uintptr_t self_lo, self_hi; /* text of libtprof.so */
static struct tp_site_rec fallback_rec;  /* used when the tables cannot be mapped */
static uintptr_t fallback_frame;

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t probe = (uintptr_t)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (probe >= lo && probe < hi) {
            self_lo = lo;
            self_hi = hi;
            return 1;
        }
    }
    return 0;
}

int tp_addr_is_ours(uintptr_t a)
{
    return a >= self_lo && a < self_hi;
}

static void *map(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

void tp_sites_init(void)
{
    int saved = errno;
    depth = tp_cfg.stack;
    uint64_t want = tp_cfg.max_sites;
    if (want > (1u << 23) - 1)
        want = (1u << 23) - 1; /* the heap table packs the site number in 23 bits */
    cap = (uint32_t)want;
    uint64_t slots = 1;
    while (slots < 2ull * cap)
        slots <<= 1;
    idx_mask = slots - 1;
    recs = map(sizeof *recs * cap);
    frames = map(sizeof *frames * (size_t)cap * (size_t)depth);
    idx = map(sizeof *idx * slots);
    if (!recs || !frames || !idx) {
        tp_warn("cannot map the call-site table; all allocations go to one site");
        cap = 1;
        recs = &fallback_rec;
        frames = &fallback_frame;
        depth = 1;
    }
    /* Record 0 is the overflow site: allocations made once the table is full. */
    atomic_store(&nrecs, 1);
    if (recs)
        recs[0].nframes = 1;
    if (frames)
        frames[0] = 0;

    dl_iterate_phdr(find_self, (void *)(uintptr_t)&tp_sites_init);
    /* Per-thread caches make unw_backtrace cheaper; a first call warms libunwind up while the
     * guard is held (PITFALLS P2, P11). */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    void *warm[4];
    unw_backtrace(warm, 4);
    errno = saved;
}

static inline uint64_t hash_frames(const uintptr_t *f, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h | 1;
}

/* Stacks are a few words: a loop beats a call to memcmp. */
static inline int same_frames(const uintptr_t *a, const uintptr_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static uint32_t lookup_or_insert(const uintptr_t *f, int n)
{
    uint64_t h = hash_frames(f, n);
    uint32_t mine = 0; /* reserved record, 0 = none yet */
    for (uint64_t i = 0; i <= idx_mask; i++) {
        _Atomic uint32_t *slot = &idx[(h + i) & idx_mask];
        uint32_t v = atomic_load_explicit(slot, memory_order_acquire);
        if (v) {
            struct tp_site_rec *r = &recs[v - 1];
            if (r->hash == h && r->nframes == (uint32_t)n &&
                same_frames(&frames[(size_t)(v - 1) * depth], f, n)) {
                if (mine)
                    recs[mine].nframes = 0; /* lost the race to an identical stack */
                return v - 1;
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
            recs[mine].hash = h;
            recs[mine].nframes = (uint32_t)n;
        }
        uint32_t expect = 0;
        if (atomic_compare_exchange_strong_explicit(slot, &expect, mine + 1, memory_order_release,
                                                    memory_order_acquire))
            return mine;
        i--; /* re-examine the slot someone else just filled */
    }
    atomic_fetch_add(&dropped, 1);
    return 0;
}

uint32_t tp_site_capture(void *ra)
{
    uintptr_t f[TP_MAX_STACK];
    int n;
    if (tp_unlikely(cap <= 1))
        return 0;
    if (depth == 1) {
        /* The shim's return address is the call site: no unwinding at all. */
        f[0] = (uintptr_t)ra;
        n = 1;
    } else {
        void *raw[TP_MAX_STACK + SKIP_MAX];
        int got = unw_backtrace(raw, depth + SKIP_MAX);
        int k = 0;
        /* Drop our own frames (the capture, the shim) wherever inlining left them. */
        while (k < got && tp_addr_is_ours((uintptr_t)raw[k]))
            k++;
        n = 0;
        for (; k < got && n < depth; k++) {
            if (!raw[k])
                break;
            f[n++] = (uintptr_t)raw[k];
        }
        if (n == 0) {
            f[0] = (uintptr_t)ra;
            n = 1;
        }
    }
    return lookup_or_insert(f, n);
}

uint32_t tp_sites_count(void)
{
    uint32_t n = atomic_load(&nrecs);
    return n > cap ? cap : n;
}

struct tp_site_rec *tp_site_get(uint32_t id)
{
    return &recs[id];
}

const uintptr_t *tp_site_frames(uint32_t id, uint32_t *n)
{
    *n = recs[id].nframes;
    return &frames[(size_t)id * depth];
}

uint64_t tp_sites_dropped(void)
{
    return atomic_load(&dropped);
}
