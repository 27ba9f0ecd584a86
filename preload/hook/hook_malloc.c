/* The malloc family, interposed: malloc, free, calloc, realloc, reallocarray, the aligned family
 * and malloc_usable_size, each its own shim (glibc's aligned functions do not go through malloc).
 *
 * Every shim forwards to the next definition in the lookup chain (dlsym RTLD_NEXT: glibc, or an
 * allocator preloaded after us) and, when recording is on, tells track/heap/heap.c what happened.
 * Pointers are never changed: no header, sizes live in track/heap/livetable.c's table. Before the real functions are known,
 * dlsym's own allocations are served from a static bootstrap arena (track/rawalloc.c). */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "preload/hook/alloc_time.h"
#include "preload/main.h"
#include "preload/shim.h"
#include "preload/shim_signal.h"
#include "track/heap/heap.h"
#include "track/ops/ops.h"
#include "track/rawalloc.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/sym/sym.h"
#include "track/unwind/unwind.h"

typedef void *(*aligned_alloc_fn)(size_t, size_t);
typedef void *(*valloc_fn)(size_t);

/* The real functions and the bootstrap arena are tprof's own allocator's (track/rawalloc.c);
 * the shims below use them under these names. */
#define real_malloc         tp_raw.malloc
#define real_free           tp_raw.free
#define real_calloc         tp_raw.calloc
#define real_realloc        tp_raw.realloc
#define real_reallocarray   tp_raw.reallocarray
#define real_posix_memalign tp_raw.posix_memalign
#define real_aligned_alloc  tp_raw.aligned_alloc
#define real_memalign       tp_raw.memalign
#define real_valloc         tp_raw.valloc
#define real_pvalloc        tp_raw.pvalloc
#define real_usable         tp_raw.usable_size
#define ready               tp_raw_ready
#define boot_alloc          tp_boot_alloc
#define boot_size           tp_boot_size

/* ---- recording ---- */

/* The first allocation after start-up: initialise here rather than wait for our constructor,
 * so that allocations made by other libraries' constructors count. Apart, so that the shims that
 * ask recording() need no saved register for it. */
static __attribute__((noinline, cold)) int recording_first(void)
{
    tp_preload_init();
    return tp_running();
}

/* Is this call to be recorded? Cheap: one TLS load and one relaxed atomic load. */
static inline int recording(void)
{
    if (tp_guard)
        return 0;
    int s = atomic_load_explicit(&tp_state, memory_order_relaxed);
    if (tp_likely(s == TP_RUNNING))
        return 1;
    if (s == TP_BOOT)
        return recording_first();
    return 0;
}

/* Record a new block. Called with the guard held. Always inlined, so that the walk starts at the
 * shim's own frame: tp_unwind from its caller; the realloc shim's frame above do_realloc is
 * dropped by tp_site_find. */
static inline __attribute__((always_inline)) void note_alloc(void *p, size_t n, void *ra,
                                                             uint64_t ns)
{
    void *raw[TP_MAX_STACK + TP_STACK_ROOM];
    int want = tp_sites_want();
    int got = 0;
    if (want > 0) /* tp_unwind has no frame of ours to skip but the realloc shim's */
        got = tp_unwind(raw, want - TP_STACK_ROOM + 1, __builtin_return_address(0),
                        __builtin_frame_address(0));
    if (ns) /* not every call is timed (CLOCK_EVERY) */
        tp_heap_add_alloc_ns(ns);
    /* The op that allocates is charged here, not by heap.c: the accounting knows nothing of ops.
     * Before the first op began no op can be open: a program without ops makes no call for it. */
    if (tp_heap_alloc(p, n, ra, raw, got) && tp_ops_first_ns() != 0)
        tp_ops_on_alloc(n);
}

/* After a hook: act on a signal that arrived while this thread was inside the allocator. */
static inline void after_hook(void)
{
    if (tp_unlikely(atomic_load_explicit(&tp_pending_signal, memory_order_relaxed) != 0))
        tp_signal_deferred();
}

/* Forget p when it is freed unrecorded, so that a later block at the same address is not mistaken
 * for it; but only while the tables exist and are not being read for the report, and not when
 * re-entering. */
static inline void forget_unrecorded(void *p)
{
    if (!tp_guard && tp_heap_tracking() &&
        atomic_load_explicit(&tp_state, memory_order_relaxed) < TP_FINISHING)
        tp_heap_forget(p);
}

/* The common end of an allocating shim, entered with the guard held: record the block (or the
 * failure), drop the guard, give the program the errno of the real call, and act on a signal
 * that was deferred while we were inside the allocator. */
static inline __attribute__((always_inline)) void *finish_alloc(void *p, size_t n, void *ra,
                                                                uint64_t elapsed)
{
    int e = errno;
    if (p)
        note_alloc(p, n, ra, elapsed);
    else
        tp_heap_failed(elapsed);
    tp_guard = 0;
    errno = e;
    after_hook();
    return p;
}

/* The recording malloc and free are functions of their own: each shim tests what forwards
 * untouched and jumps to its path, so that no path's frame is paid by the calls that forward. */
static __attribute__((noinline)) void *malloc_record(size_t n, void *ra)
{
    uint64_t elapsed;
    void *p;
    tp_guard = 1;
    TIMED(real_malloc(n), p, n);
    return finish_alloc(p, n, ra, elapsed);
}

/* Nothing to ask but the state: this is not tprof's own call and tprof is recording, which means
 * that the real functions are known (tp_init). Two loads; the shims that jump on it need no
 * frame. */
static inline int plain_recording(void)
{
    return tp_likely(!tp_guard) &&
           tp_likely(atomic_load_explicit(&tp_state, memory_order_acquire) == TP_RUNNING);
}

/* Every other case: start-up, tprof's own calls, not recording. */
static __attribute__((noinline)) void *malloc_other(size_t n, void *ra)
{
    if (tp_unlikely(!ready()))
        return boot_alloc(n, 16);
    if (!recording())
        return real_malloc(n);
    return malloc_record(n, ra);
}

TP_EXPORT TP_NOINSTR TP_DISPATCH void *malloc(size_t n)
{
    if (plain_recording())
        return malloc_record(n, __builtin_return_address(0));
    return malloc_other(n, __builtin_return_address(0));
}

TP_EXPORT TP_NOINSTR void *calloc(size_t n, size_t m)
{
    if (tp_unlikely(!ready()))
        return tp_calloc(n, m);
    if (!recording())
        return real_calloc(n, m);
    void *ra = __builtin_return_address(0);
    uint64_t elapsed;
    void *p;
    size_t req;
    if (__builtin_mul_overflow(n, m, &req))
        req = SIZE_MAX; /* the real calloc fails it; timed as a big call */
    tp_guard = 1;
    TIMED(real_calloc(n, m), p, req);
    size_t bytes = req; /* no overflow: the real calloc succeeded */
    if (tp_unlikely(m == 2 * sizeof(void *)))
        bytes -= tp_tls_dtv_surplus((uintptr_t)ra, n, m); /* a thread's DTV: tprof's TLS out */
    return finish_alloc(p, bytes, ra, elapsed);
}

static __attribute__((noinline)) void free_record(void *p)
{
    int e = errno;
    tp_guard = 1;
    /* Record before the real free: afterwards the address may be handed out again. */
    size_t n = tp_heap_free(p);
    if (tp_unlikely(n >= TP_ALLOC_BIG)) {
        if (n >= TP_LEDGER_RELEASE) /* the memory ledger may read first: a peak may end here */
            tp_ledger_release(n, 1);
        uint64_t t0 = tp_ticks();
        real_free(p);
        tp_heap_add_alloc_ns(tp_ticks() - t0);
    } else if (clock_this_call()) {
        uint64_t t0 = tp_ticks();
        real_free(p);
        tp_heap_add_alloc_ns(weigh_small(tp_ticks() - t0));
    } else {
        real_free(p);
    }
    tp_guard = 0;
    errno = e; /* glibc's manual: a replacement free preserves errno */
    after_hook();
}

static __attribute__((noinline)) void free_other(void *p)
{
    if (tp_unlikely(!ready()))
        return;
    if (!recording()) {
        forget_unrecorded(p);
        real_free(p);
        return;
    }
    free_record(p);
}

TP_EXPORT TP_NOINSTR TP_DISPATCH void free(void *p)
{
    if (!p)
        return;
    if (tp_unlikely(tp_boot_owns(p)))
        return; /* the bootstrap arena's: never given back */
    if (plain_recording()) {
        free_record(p);
        return;
    }
    free_other(p);
}

/* realloc: realloc(NULL, n) is malloc; glibc's realloc(p, 0) frees p and returns NULL; a
 * failure leaves p alive. The old record is taken out before the real call (the block may move
 * and its address be reused by another thread) and put back if p survives. */
static void *do_realloc(void *p, size_t n, void *ra, int is_array, size_t cnt, size_t sz)
{
    uint64_t elapsed;
    void *q;
    struct tp_blk old;
    int known;

    tp_guard = 1;
    known = tp_heap_take(p, &old);
    size_t moved = known && old.size > n ? old.size : n; /* what a copy may move */
    if (is_array)
        TIMED(real_reallocarray(p, cnt, sz), q, moved);
    else
        TIMED(real_realloc(p, n), q, moved);
    int e = errno;
    if (q) {
        if (known)
            tp_heap_release(&old, p);
        else
            tp_heap_unknown_free();
        note_alloc(q, n, ra, elapsed);
    } else if (n == 0) {
        /* glibc freed p */
        if (known)
            tp_heap_release(&old, p);
        else
            tp_heap_unknown_free();
        tp_heap_add_alloc_ns(elapsed);
    } else {
        if (known)
            tp_heap_restore(p, &old);
        tp_heap_failed(elapsed);
    }
    tp_guard = 0;
    errno = e;
    after_hook();
    return q;
}

TP_EXPORT TP_NOINSTR void *realloc(void *p, size_t n)
{
    if (tp_unlikely(!ready()))
        return tp_realloc(p, n);
    if (tp_unlikely(p && tp_boot_owns(p)))
        return tp_realloc(p, n);
    if (!recording()) {
        if (p)
            forget_unrecorded(p);
        if (!p)
            return real_malloc(n);
        return real_realloc(p, n);
    }
    void *ra = __builtin_return_address(0);
    if (!p) {
        uint64_t elapsed;
        void *q;
        tp_guard = 1;
        TIMED(real_realloc(NULL, n), q, n);
        return finish_alloc(q, n, ra, elapsed);
    }
    return do_realloc(p, n, ra, 0, 0, 0);
}

TP_EXPORT TP_NOINSTR void *reallocarray(void *p, size_t cnt, size_t sz)
{
    size_t n;
    if (__builtin_mul_overflow(cnt, sz, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    if (tp_unlikely(!ready()) || tp_unlikely(p && tp_boot_owns(p)))
        return tp_realloc(p, n);
    if (!real_reallocarray)
        return realloc(p, n);
    if (!recording()) {
        if (p)
            forget_unrecorded(p);
        return real_reallocarray(p, cnt, sz);
    }
    void *ra = __builtin_return_address(0);
    if (!p) {
        uint64_t elapsed;
        void *q;
        tp_guard = 1;
        TIMED(real_reallocarray(NULL, cnt, sz), q, n);
        return finish_alloc(q, n, ra, elapsed);
    }
    return do_realloc(p, n, ra, 1, cnt, sz);
}

/* The aligned family: glibc's versions do not go through malloc, so each is its own shim. */
static void *aligned_common(aligned_alloc_fn fn, size_t align, size_t n, void *ra)
{
    uint64_t elapsed;
    void *p;
    tp_guard = 1;
    TIMED(fn(align, n), p, n);
    return finish_alloc(p, n, ra, elapsed);
}

TP_EXPORT TP_NOINSTR int posix_memalign(void **out, size_t align, size_t n)
{
    if (tp_unlikely(!ready())) {
        if (align < sizeof(void *) || (align & (align - 1)))
            return EINVAL;
        void *p = boot_alloc(n, align);
        if (!p)
            return ENOMEM;
        *out = p;
        return 0;
    }
    if (!recording() || !real_posix_memalign)
        return real_posix_memalign ? real_posix_memalign(out, align, n) : ENOMEM;
    void *ra = __builtin_return_address(0);
    uint64_t elapsed;
    int rc;
    void *p = NULL;
    tp_guard = 1;
    TIMED(real_posix_memalign(&p, align, n), rc, n);
    finish_alloc(rc == 0 ? p : NULL, n, ra, elapsed);
    if (rc == 0)
        *out = p; /* only on success: the spec leaves *out alone on error */
    return rc;
}

TP_EXPORT TP_NOINSTR void *aligned_alloc(size_t align, size_t n)
{
    if (tp_unlikely(!ready()))
        return boot_alloc(n, align);
    if (!recording())
        return real_aligned_alloc(align, n);
    return aligned_common(real_aligned_alloc, align, n, __builtin_return_address(0));
}

TP_EXPORT TP_NOINSTR void *memalign(size_t align, size_t n)
{
    if (tp_unlikely(!ready()))
        return boot_alloc(n, align);
    if (!recording())
        return real_memalign(align, n);
    return aligned_common(real_memalign, align, n, __builtin_return_address(0));
}

static void *valloc_common(valloc_fn fn, size_t n, void *ra)
{
    uint64_t elapsed;
    void *p;
    tp_guard = 1;
    TIMED(fn(n), p, n);
    return finish_alloc(p, n, ra, elapsed);
}

TP_EXPORT TP_NOINSTR void *valloc(size_t n)
{
    if (tp_unlikely(!ready()))
        return boot_alloc(n, 4096);
    if (!recording())
        return real_valloc(n);
    return valloc_common(real_valloc, n, __builtin_return_address(0));
}

TP_EXPORT TP_NOINSTR void *pvalloc(size_t n)
{
    if (tp_unlikely(!ready()))
        return boot_alloc(n, 4096);
    if (!recording())
        return real_pvalloc(n);
    /* The request is what the program asked for; pvalloc's rounding up is the allocator's. */
    return valloc_common(real_pvalloc, n, __builtin_return_address(0));
}

TP_EXPORT TP_NOINSTR size_t malloc_usable_size(void *p)
{
    if (p && tp_boot_owns(p))
        return boot_size(p);
    if (!ready() || !real_usable)
        return 0;
    return real_usable(p);
}
