/* The report's series over time: the heap's live bytes, taken at the begin and end of outermost
 * op calls, at step ends and at the CPU sampler's ticks, and the latency of each step
 * (track/out/series.c). */
#ifndef TPROF_SERIES_H
#define TPROF_SERIES_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include "track/heap/heap.h"

struct tp_report;

/* Points of the heap over time the library keeps (a fixed buffer, halved when full). */
#define TP_SERIES_CAP 4096

/* A point as taken: the clock in ticks, live bytes, the persistent floor (live bytes when the
 * last unit of lifetime ended, never above live) and the op running (an op id, -1 for none). */
struct tp_series_raw {
    uint64_t ticks, live, floor;
    int op;
};

/* What tp_series_heap records, with the figures given (tests give their own). */
void tp_series_add(uint64_t ticks, uint64_t live, uint64_t floor, int op);

/* series.c's: the tick from which the next point is stored, and the live bytes + 1 of the most
 * live point taken since the last one stored (0: none). */
extern _Atomic uint64_t tp_series_due, tp_series_pend_live;

/* The heap now, for op id (-1: none) at ticks (tp_ticks()): at an outermost op call's begin or
 * end (the op is the call's), at a step's end (-1). Async-signal-safe; never waits. Inline: a
 * point within the current gap that is no higher than the one kept (most of them, on a run
 * whose buffer filled) is left here, two loads after the live bytes'. */
static inline void tp_series_heap(int op, uint64_t ticks)
{
    uint64_t floor, live = tp_heap_live(&floor);
    if (ticks < atomic_load_explicit(&tp_series_due, memory_order_relaxed) &&
        live < atomic_load_explicit(&tp_series_pend_live, memory_order_relaxed))
        return;
    tp_series_add(ticks, live, floor, op);
}
/* The buffer's halving: each pair of neighbours (p[0], p[1]), (p[2], p[3]), ... becomes the one
 * with more live bytes (the earlier of two equal), an odd last point stays. Returns the count. */
size_t tp_series_halve(struct tp_series_raw *p, size_t n);

/* A step ended: index among the recorded steps, its end (ns since the start) and duration. */
void tp_series_step(uint64_t index, uint64_t end_ns, uint64_t ns);
/* In a fork child: both series start afresh. */
void tp_series_fork_child(void);
/* Fill r->memory.series (with the exact peak and the heap now among the points, op_name naming
 * their ops) and r->steps.series, each at most TP_SERIES_MAX points; after the memory and the
 * steps are collected. */
void tp_series_collect(struct tp_report *r, const char *(*op_name)(int id));

#endif
