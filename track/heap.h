/* Heap accounting (DESIGN §6): the table of live blocks, the global live/peak counters, and the
 * per-site figures. Called by the malloc shims with the recursion guard held. */
#ifndef TPROF_HEAP_H
#define TPROF_HEAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A live block as the table knows it. */
struct tp_blk {
    uint64_t size;
    uint32_t site;
    int early; /* allocated before the first op or step */
};

void tp_heap_init(void);
int tp_heap_tracking(void);

/* Record block p of n bytes. ra: the shim's return address; raw, got: the frames tp_unwind
 * gave in the shim (tp_sites_want(), sites.h), got 0 for none; ns: the allocator's time. */
void tp_heap_alloc(void *p, size_t n, void *ra, void *const *raw, int got, uint64_t ns);
void tp_heap_free(void *p);
void tp_heap_failed(uint64_t ns);
void tp_heap_unknown_free(void);
void tp_heap_add_alloc_ns(uint64_t ns);
/* Remove p without recording a free (used when recording is off). */
void tp_heap_forget(void *p);
/* realloc: take p's record out (1 if known), then either release it as freed or restore it. */
int tp_heap_take(void *p, struct tp_blk *out);
void tp_heap_release(const struct tp_blk *b, void *p);
void tp_heap_restore(void *p, const struct tp_blk *b);

/* After a hook: act on a signal that arrived while this thread was inside the allocator. */
extern _Atomic int tp_pending_signal;
void tp_signal_deferred(void);
static inline void tp_heap_after_hook(void)
{
    if (__builtin_expect(atomic_load_explicit(&tp_pending_signal, memory_order_relaxed) != 0, 0))
        tp_signal_deferred();
}

/* Figures for the report. */
struct tp_heap_totals {
    uint64_t live, peak, peak_ns, pseq;
    int peak_op;
    uint64_t unknown_frees, failed_allocs, alloc_ns, dropped;
    uint64_t early_at_peak; /* live at the peak and allocated before the first op/step */
};
void tp_heap_totals(struct tp_heap_totals *t);
/* Reset after fork in the child: the inherited heap stays live, counters start again. */
void tp_heap_fork_prepare(void);
void tp_heap_fork_parent(void);
void tp_heap_fork_child(void);
/* Threads that ever recorded an allocation. */
uint64_t tp_heap_threads(void);

#endif
