/* The timeline (TPROF_TRACE): one record per op call, a heap counter sampled by a thread of ours,
 * and the Chrome Trace Event file made of them (implemented in preload/trace.c).
 *
 * Recording is bounded twice: at most TPROF_TRACE_CAP calls are kept in memory (and never more
 * than the size budget could hold); when the file is written, events stop before it would pass
 * TPROF_TRACE_MAX bytes. Calls left out either way are summarised per op (count, time, first and
 * last) in the file and in the report, never dropped silently. */
#ifndef TPROF_TRACE_H
#define TPROF_TRACE_H

#include <stdint.h>

struct tp_buf;
struct tp_report;

/* 1 when TPROF_TRACE is set and the buffers exist: ops.c checks it before calling in. */
extern int tp_trace_on;

/* From tp_init, after the op table exists. */
void tp_trace_init(void);
/* Start the heap sampler thread (from the constructor, never inside malloc). */
void tp_trace_start(void);
void tp_trace_fork_child(void);

/* One op call: ticks t0..t1 (src/clock.h), its FLOPs, and its shape slot in the op (-1: none). */
void tp_trace_call(int op, uint64_t t0, uint64_t t1, uint64_t flops, int shape);

/* Render the trace file of what was recorded so far into b (at most TPROF_TRACE_MAX bytes) and
 * fill r->outputs' trace counters. r is the collected report (for names, kinds and the peak). */
void tp_trace_render(struct tp_report *r, struct tp_buf *b);

#endif
