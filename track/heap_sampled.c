/* The sampled mode of the heap accounting (TPROF_SAMPLE, track/heapsample.h).
 *
 * The global live bytes are the allocator's usable sizes, added at the allocation and taken off
 * at the free of every block, sampled or not; only sampled blocks are in the live-block table
 * (with their requested size), and their sites' figures are the bytes they stand for. The global
 * figures are compared signed: a block allocated before tprof started, freed after, takes off
 * bytes that were never added. */
#include "track/heap.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "track/heap_fast.h"
#include "track/heap_state.h"
#include "track/heapsample.h"
#include "track/livetable.h"
#include "track/rawalloc.h"
#include "track/sites.h"

int tp_hs_fast, tp_hs_glibc;

/* Is every function of the malloc family the one in libc.so? (an allocator preloaded after us, or
 * glibc's malloc debugging library, defines its own) */
static int family_is_libc(void)
{
    Dl_info i, j;
    if (!tp_raw.malloc || !tp_raw.usable_size || !dladdr((void *)tp_raw.malloc, &i) || !i.dli_fname)
        return 0;
    const char *base = strrchr(i.dli_fname, '/');
    if (strncmp(base ? base + 1 : i.dli_fname, "libc.so.", 8) != 0)
        return 0;
    void *fns[] = {(void *)tp_raw.free,           (void *)tp_raw.calloc,
                   (void *)tp_raw.realloc,        (void *)tp_raw.reallocarray,
                   (void *)tp_raw.posix_memalign, (void *)tp_raw.aligned_alloc,
                   (void *)tp_raw.memalign,       (void *)tp_raw.valloc,
                   (void *)tp_raw.pvalloc,        (void *)tp_raw.usable_size};
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
        if (fns[k] && (!dladdr(fns[k], &j) || j.dli_fbase != i.dli_fbase))
            return 0;
    return 1;
}

/* The chunk header is read only if it says what malloc_usable_size says, for blocks of every
 * kind: small, large, aligned, zeroed, and one of its own mapping (over glibc's largest dynamic
 * mmap threshold, so that freeing it leaves the threshold where the program's blocks set it). */
static int header_agrees(void)
{
    static const size_t sizes[] = {0, 1, 24, 25, 100, 1000, 4000, 70000, 33u << 20};
    int ok = 1;
    tp_hs_glibc = 1;
    for (size_t k = 0; ok && k < sizeof sizes / sizeof sizes[0]; k++) {
        void *p = tp_raw.malloc(sizes[k]);
        if (p)
            ok = tp_hs_usable(p, 0) == tp_raw.usable_size(p);
        tp_raw.free(p);
    }
    void *q = NULL;
    if (ok && tp_raw.posix_memalign && tp_raw.posix_memalign(&q, 4096, 100) == 0) {
        ok = tp_hs_usable(q, 0) == tp_raw.usable_size(q);
        tp_raw.free(q);
    }
    if (ok && tp_raw.calloc && (q = tp_raw.calloc(3, 40)) != NULL) {
        ok = tp_hs_usable(q, 0) == tp_raw.usable_size(q);
        tp_raw.free(q);
    }
    tp_hs_glibc = 0;
    return ok;
}

void tp_heap_hs_setup(void)
{
    int e = errno;
    tp_hs_glibc = tp_raw_ready() && family_is_libc() && header_agrees();
    tp_hs_fast = tp_hs_glibc;
    errno = e;
}

/* live (usable bytes) was seen over the peak: 1 when it made a new one (then *tag and *pseq are
 * its), 0 when another thread's made it higher first. */
static int hs_peak(int64_t live, uint64_t *tag, uint64_t *pseq)
{
    uint64_t peak = atomic_load_explicit(&tp_hg.peak, memory_order_relaxed);
    while (live > (int64_t)peak) {
        if (atomic_compare_exchange_weak_explicit(&tp_hg.peak, &peak, (uint64_t)live,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            *tag = atomic_load_explicit(&tp_hg.tag, memory_order_relaxed);
            *pseq = tp_heap_new_peak(*tag);
            return 1;
        }
    }
    return 0;
}

void tp_heap_hs_peak(int64_t live)
{
    uint64_t tag, pseq;
    (void)hs_peak(live, &tag, &pseq);
}

/* u usable bytes more live: 1 when they made a new peak (then *tag and *pseq are its). */
static inline __attribute__((always_inline)) int hs_live_add(uint64_t u, uint64_t *tag,
                                                             uint64_t *pseq)
{
    int64_t live = (int64_t)(atomic_fetch_add_explicit(&tp_hg.live, u, memory_order_relaxed) + u);
    if (live <= (int64_t)atomic_load_explicit(&tp_hg.peak, memory_order_relaxed))
        return 0;
    return hs_peak(live, tag, pseq);
}

void tp_heap_hs_count(size_t n, size_t usable)
{
    if (!atomic_load_explicit(&tp_heap_mode, memory_order_relaxed))
        return;
    if (tp_unlikely(!tp_heap_thread_seen))
        tp_heap_thread_first();
    tp_hs_count_alloc(n);
    uint64_t tag, pseq;
    (void)hs_live_add(usable, &tag, &pseq);
}

int tp_heap_hs_alloc(void *p, size_t n, size_t usable, void *ra, void *const *raw, int got)
{
    if (!atomic_load_explicit(&tp_heap_mode, memory_order_relaxed))
        return 0;
    if (tp_unlikely(!tp_heap_thread_seen))
        tp_heap_thread_first();
    tp_hs_count_alloc(n);
    uint32_t site = tp_site_find(raw, got, ra);
    uint64_t tag = 0, pseq = 0;
    int is_peak = hs_live_add(usable, &tag, &pseq);
    if (!is_peak) {
        tag = atomic_load_explicit(&tp_hg.tag, memory_order_relaxed);
        pseq = atomic_load_explicit(&tp_hg.pseq, memory_order_relaxed);
        int state = atomic_load_explicit(&tp_hg.tag_state, memory_order_relaxed);
        if (state != TAG_USED)
            tag = tp_heap_tag_first_use(tag, state);
    }
    struct tp_blk b = {n, site, (uint32_t)tag};
    if (tp_live_insert(p, b) < 0) {
        atomic_fetch_add(&tp_heap_dropped, 1); /* the global figures have it all the same */
        return 1;
    }
    tp_hs_filter_add(p);
    uint64_t w = tp_hs_weight_bytes(n);
    struct tp_site_rec *s = tp_site_hot(site);
    uint64_t slive = atomic_fetch_add_explicit(&s->live, w, memory_order_relaxed) + w;
    tp_heap_site_sync(s, pseq, slive - w);
    tp_heap_max_store(&s->peak_live, slive);
    if (is_peak)
        atomic_store_explicit(&s->at_peak, slive, memory_order_relaxed);
    tp_site_count_alloc(site, w);
    tp_hs_site_alloc(site, n);
    return 1;
}

/* A sampled block leaves: what it stood for leaves its site (and the peak's transient part). */
void tp_heap_hs_account_free(const struct tp_blk *b)
{
    uint64_t w = tp_hs_weight_bytes(b->size);
    if (atomic_load_explicit(&tp_hg.open, memory_order_relaxed) && tp_heap_in_peak_unit(b->tag))
        atomic_fetch_add_explicit(&tp_hg.freed, w, memory_order_relaxed);
    uint64_t pseq = atomic_load_explicit(&tp_hg.pseq, memory_order_relaxed);
    struct tp_site_rec *s = tp_site_hot(b->site);
    uint64_t before = atomic_fetch_sub_explicit(&s->live, w, memory_order_relaxed);
    tp_heap_site_sync(s, pseq, before);
    tp_site_count_free(b->site);
    tp_hs_site_free(b->site, b->size);
}

void tp_heap_hs_release(const struct tp_blk *b, size_t usable)
{
    if (!atomic_load_explicit(&tp_heap_mode, memory_order_relaxed))
        return;
    tp_hs_count_free();
    if (b)
        tp_heap_hs_account_free(b);
    atomic_fetch_sub_explicit(&tp_hg.live, usable, memory_order_relaxed);
}

/* The usable size is read before the block is freed: afterwards it may be another's. Not inlined
 * into tp_heap_free, so that the call there is a jump that needs none of its saved registers. */
static __attribute__((noinline)) int64_t hs_free_maybe_sampled(void *p, size_t u)
{
    struct tp_blk b = tp_live_remove(p);
    if (b.site != TP_LIVE_NONE)
        tp_hs_filter_del(p);
    tp_heap_hs_release(b.site != TP_LIVE_NONE ? &b : NULL, u);
    return b.site != TP_LIVE_NONE ? (int64_t)b.size : -1;
}

/* The common case, a block not sampled, in as few registers as a leaf needs. */
__attribute__((noinline)) void tp_heap_hs_free(void *p)
{
    (void)tp_heap_hs_free_slow(p);
}

int64_t tp_heap_hs_free_slow(void *p)
{
    size_t u = tp_hs_usable(p, 0);
    if (tp_unlikely(tp_hs_maybe(p)))
        return hs_free_maybe_sampled(p, u);
    tp_hs_count_free();
    atomic_fetch_sub_explicit(&tp_hg.live, u, memory_order_relaxed);
    return -1;
}
