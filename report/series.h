/* The report's series over time: their points (held by report.h's model) and how a long series
 * is made short (report/series.c). */
#ifndef TPROF_REPORT_SERIES_H
#define TPROF_REPORT_SERIES_H

#include <stddef.h>
#include <stdint.h>

/* One point of the heap over time: live bytes at ns since the start, and of them the bytes live
 * when the last unit of lifetime (step) ended, which outlived it: the persistent floor (never
 * more than live); op: the op whose outermost call began or ended there, or the op running on
 * the thread that set the peak or took the sample, NULL for none (owned by the model). */
struct tp_heap_point {
    uint64_t ns, live_bytes, persistent_bytes;
    char *op;
};

/* One step of the run: its index among the recorded steps (warm-up ones first), when it ended
 * (ns since the start) and how long it took. */
struct tp_step_point {
    uint64_t index, end_ns, ns;
};

/* Points kept in a series of the report (heap over time, steps over the run). */
#define TP_SERIES_MAX 1000

/* Reduce n points (x ascending) to at most max in place: the run is cut into max / 2 stretches
 * of equal point count and each keeps its points with the smallest and the largest value, in
 * their order, so the largest of all (the heap peak) is kept exactly and the chart keeps its
 * envelope. val(i) reads point i's value; move(dst, src) copies point src to dst (dst <= src).
 * Returns the new count. */
size_t tp_series_downsample(size_t n, size_t max, uint64_t (*val)(void *ctx, size_t i),
                            void (*move)(void *ctx, size_t dst, size_t src), void *ctx);

#endif
