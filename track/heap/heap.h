/* Heap accounting: the global live and peak figures, the per-site figures (live, peak, live at
 * the global peak), the threads that allocate and the time spent in the allocator, over the
 * table of live blocks (livetable.h). Called by the malloc shims with the recursion guard held. */
#ifndef TPROF_HEAP_H
#define TPROF_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "track/heap/livetable.h"

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

/* How the malloc shims estimate the allocator's time (preload/hook_malloc.c says why): calls for
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

#endif
