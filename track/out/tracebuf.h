/* The timeline's recording (TPROF_TRACE): one record per op call, per-op summaries of the calls
 * that are not kept, and the buffer of heap counter samples (implemented in track/out/tracebuf.c;
 * trace_heap.c samples the heap, trace_file.c makes the Chrome Trace Event file of it all).
 *
 * Recording is bounded: at most TPROF_TRACE_CAP calls are kept in memory (and never more than
 * the size budget TPROF_TRACE_MAX could hold). Calls left out are summarised per op (count,
 * time, first and last), never dropped silently. */
#ifndef TPROF_TRACEBUF_H
#define TPROF_TRACEBUF_H

#include <stdatomic.h>
#include <stdint.h>

/* 1 when TPROF_TRACE is set and the buffers exist: ops.c checks it before calling in. */
extern int tp_trace_on;

/* From tp_init, after the op table exists. */
void tp_trace_init(void);
/* In a fork child (from tp_trace_fork_child): the child's trace is its own, the parent's calls
 * and samples stay in the parent's file. */
void tp_tracebuf_fork_reset(void);

/* One op call: ticks t0..t1 (common/clock.h), its FLOPs, and its shape slot in the op (-1: none). */
void tp_trace_call(int op, uint64_t t0, uint64_t t1, uint64_t flops, int shape);

/* ---- what was recorded, as the file writer reads it ---- */

#define TP_TRACE_CHUNK_EVENTS 4096
#define TP_TRACE_MAX_THREADS  4096 /* threads named in the trace; later ones share the last track */
#define TP_TRACE_MAX_SAMPLES  16384 /* heap counter samples kept; the rate halves when full */

struct tp_trace_event {
    uint64_t t0, dur; /* ticks */
    uint64_t flops;
    int32_t op;
    uint16_t thread; /* index into tp_trace_threads[] */
    int16_t shape;   /* shape slot of the op, -1 none */
};

/* Events of one thread, newest chunk first in the list. */
struct tp_trace_chunk {
    struct tp_trace_chunk *next;
    _Atomic uint32_t n; /* events ready: a writer publishes each with a release store */
    struct tp_trace_event ev[TP_TRACE_CHUNK_EVENTS];
};

/* Calls of one op that are not kept one by one (ticks). */
struct tp_trace_summary {
    _Atomic uint64_t calls, ticks, first, last;
};

struct tp_trace_thread {
    long tid;
    char name[16];
};

struct tp_trace_sample {
    uint64_t ns; /* since tp_start_ns */
    uint64_t live;
};

extern _Atomic(struct tp_trace_chunk *) tp_trace_chunks;
extern _Atomic uint64_t tp_trace_recorded; /* calls offered to the trace */
/* Per op (tp_trace_nsummary of them): calls past TPROF_TRACE_CAP, and calls the size budget
 * could never hold. */
extern struct tp_trace_summary *tp_trace_past_cap, *tp_trace_past_room;
extern int tp_trace_nsummary;
extern struct tp_trace_thread tp_trace_threads[TP_TRACE_MAX_THREADS];
extern _Atomic int tp_trace_nthreads;
extern uint64_t tp_trace_base_ticks, tp_trace_base_ns; /* one instant on both clocks */
extern struct tp_trace_sample *tp_trace_samples; /* TP_TRACE_MAX_SAMPLES, written by trace_heap.c */
extern _Atomic uint32_t tp_trace_nsamples;

/* Add a call t0..t1 to a summary (thread-safe). */
void tp_trace_summarise(struct tp_trace_summary *s, uint64_t t0, uint64_t t1);

#endif
