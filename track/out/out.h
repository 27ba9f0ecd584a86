/* Collection into the report model and the report files: the one header of track/out/ for code outside it. */
#ifndef TPROF_TRACK_OUT_OUT
#define TPROF_TRACK_OUT_OUT

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/out/out.h"
#include "report/report.h"
#include "track/heap/heap.h"

/* Fill a report model from the live tables at the end of a run (or of a window). */
void tp_collect(struct tp_report *r, const char *why);
/* The calling thread writes only reports made while the program runs on (snapshots, reports on
 * signal), never the one that ends the process: preload/reporter.c's thread. */
void tp_collect_interim_thread(void);
/* At the end of a run whose report is not written (track/out/output.c): what it would still say on
 * stderr, the settings that selected no function (track/ops/unmatched.c); nothing else is collected. */
void tp_collect_unwritten(void);

/* Report files (track/out/output.c): named for this process image, written whole and put in place
 * without taking the place of another process's report. */
/* Who this process image is in the profiled process tree (preload/lifecycle.c finds out); it
 * decides the report files' names. */
struct tp_ident {
    long pid;
    int is_root;   /* the process the user started (not a fork child or a spawned program) */
    int image_seq; /* how many exec's this pid went through before this image */
    long root_pid;
    uint64_t run_start_ns; /* CLOCK_MONOTONIC when the root started: the run's age, for names */
    /* The run's directory (common/out/out.h, tp_rundir_make), "" for none: where a process other
     * than the root leaves its record for the root's reporter. */
    char run_dir[TP_RUNDIR_MAX + 1];
};
void tp_output_set_ident(const struct tp_ident *id);

/* Before the program's main: an output that cannot be written is said now (one line to warn),
 * not after hours of running, and replaced by its default (common/config.h). */
void tp_output_check(void (*warn)(const char *line));

/* Build the report and write every output (the report, the JSON, the trace and the folded
 * stacks). Called with the guard held, one report at a time. A report that nothing would be
 * written of (tp_output_wanted 0) is not built. */
void tp_write_reports(const char *why, int sig_seq);
/* How a record reaches the tprof program, which reports it (preload/handoff.c, set at start: only
 * preload/ calls libc's own exec). 0 with the rendered outputs appended to *answer, each as a
 * line "KIND LENGTH" and LENGTH bytes; -1 with why. keep: this process will report again (the
 * reporter may stay). Without one, records are written as files. */
typedef int (*tp_handoff_fn)(const struct tp_buf *record, const char *kinds, int top, int keep,
                             struct tp_buf *answer, char *why, size_t n);
void tp_output_set_handoff(tp_handoff_fn fn);
/* 1 when a report on `why` ("exit", "snapshot", "exec", a signal) writes something: a file, or
 * the text on stderr, which only the root process's exit, exec and signal reports write. */
int tp_output_wanted(const char *why);

/* A terminating signal ends the process while a report is written: remove its temporary file
 * (async-signal-safe). */
void tp_report_abandon(void);

/* Exec (preload/shim_exit.c): the program about to be started, for the report this image writes
 * as it execs (NULL: by file descriptor); called before the report. That report, when the image
 * did something of its own (track/out/output_exec.c), is named by the image, and the plain names
 * are left to the image exec starts. */
void tp_output_exec_target(const char *path);
/* The exec failed: the image goes on, and the report it wrote as it exec'd is removed (the one it
 * writes at the end, under the plain names, replaces it). */
void tp_output_exec_failed(void);

/* A forked child wrote none of its parent's files. */
void tp_output_fork_child(void);

/* Where the time outside every op goes: a low-rate sample of the program counter, taken on CPU
 * time (ITIMER_PROF, SIGPROF), counted per address in a fixed table by an async-signal-safe
 * handler and put together per function when a report is written. */
struct tp_report;
typedef int (*tp_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/* Start sampling hz times per second of CPU time, installing SIGPROF's handler through ks (the
 * real sigaction). Nothing happens when hz is 0, when SIGPROF is not at its default action (the
 * program's, or ignored) or ITIMER_PROF is already armed (a profiler of the program's own, or a
 * timer inherited across exec). */
void tp_sample_start(int hz, tp_sigaction_fn ks);

/* Stop: disarm the timer and put SIGPROF's action back, unless the program has put its own in
 * the meantime (gprof's profil() does, without going through sigaction's shim), in which case
 * both are the program's and stay. Async-signal-safe. */
void tp_sample_stop(void);

/* The program is about to set SIGPROF's action itself (the sigaction and signal shims): stop
 * first, so that it finds and changes its own action, not ours. */
void tp_sample_yield(void);
/* While tprof samples, SIGPROF's action as the program left it (what a query of the action must
 * be told, so that a runtime that lists every signal's handler, as Python does at start, neither
 * sees tprof's nor stops the sampling): 1 and *old filled, or 0 when tprof does not sample. */
int tp_sample_view(struct sigaction *old);

/* The CPU time one sample stands for, in ns; 0 when tprof does not sample (and in a forked
 * child). */
uint64_t tp_sample_period_ns(void);

/* A forked child: its parent's timer is not inherited; its samples would be the parent's. The
 * child does not sample (its handler goes back to the program's action). */
void tp_sample_fork_child(void);

/* Fill r->samples and r->outside_ops (the functions the samples taken outside every op landed
 * in, most first) and add a note on how sampling went. */
void tp_sample_collect(struct tp_report *r);

/* The report's series over time: the heap's live bytes, taken at the begin and end of outermost
 * op calls, at step ends and at the CPU sampler's ticks, and the latency of each step
 * (track/out/series.c). */
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

/* The trace's heap counter track (TPROF_TRACE): a thread of ours samples the live heap bytes into
 * the trace buffer (track/out/tracebuf.c). */
/* Start the heap sampler thread (from the constructor, never inside malloc). */
void tp_trace_start(void);
/* In a fork child: the trace starts afresh (track/out/tracebuf.c) and the sampler, which did not survive
 * the fork, is started again. */
void tp_trace_fork_child(void);

/* The timeline's recording (TPROF_TRACE): one record per op call, per-op summaries of the calls
 * that are not kept, and the buffer of heap counter samples (implemented in track/out/tracebuf.c;
 * trace_heap.c samples the heap, trace_file.c makes the Chrome Trace Event file of it all).
 *
 * Recording is bounded: at most TPROF_TRACE_CAP calls are kept in memory (and never more than
 * the size budget TPROF_TRACE_MAX could hold). Calls left out are summarised per op (count,
 * time, first and last), never dropped silently. */
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
