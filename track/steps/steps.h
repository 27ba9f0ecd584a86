/* Steps, threads and what the CPUs did: the one header of track/steps/ for code outside it. */
#ifndef TPROF_TRACK_STEPS_STEPS
#define TPROF_TRACK_STEPS_STEPS

#include <stdatomic.h>
#include <stdint.h>

#include "track/runtime.h"

/* Steps and the TPROF_SCHEDULE window (track/steps/steps.c). tp_step_begin, tp_step_end and
 * tp_step_mark are declared in track/ops/ops.h, with the ops that call them. */
/* Is what runs now inside the recorded window of steps? Always 1 without TPROF_SCHEDULE. */
int tp_steps_in_window(void);
/* Steps the run began, in the TPROF_SCHEDULE window or not (with tprof_step() markers: the
 * marks). */
uint64_t tp_steps_seen(void);
/* The function whose calls are the steps: TPROF_STEP's, or with none the ggml graph-compute
 * entry point whose call began the first step; NULL while there is none (markers, or no step). */
const char *tp_steps_function(void);
/* The step histogram, made when the op table is. */
void tp_steps_init(void);
/* In a fork child: the child's steps start from none. */
void tp_steps_fork_child(void);

/* What each of the program's threads got of the CPUs: time on a CPU, time runnable but waiting
 * for one (the run queue), context switches, from the kernel's per-thread files.
 *
 * A thread's figures vanish with it, so each thread the program starts through pthread_create
 * (preload/hook/hook_thread.c) reads its own when it ends, in a thread-specific key's destructor (it
 * runs on return from the thread's function and on pthread_exit); threads alive at the report
 * are read then, from /proc/self/task. tprof's own threads are left out. */
struct tp_report;

/* The wall time each thread spends inside ops, for the time outside every op summed over threads
 * (program.in_ops_ns): the op core adds each outermost call's ticks to its thread's share, which
 * joins the program's sum in batches of TP_CPU_OPS_BATCH ticks (0.2 to 1 ms at 1 to 5 GHz), when
 * the thread ends and, for the thread that reports, at the report. A share still short of a batch
 * on another live thread at the report is left out, as is a call still open then. */
#define TP_CPU_OPS_BATCH (1ull << 20)
extern TP_TLS uint64_t tp_cpu_ops_ticks;
/* Of those, what tprof's own hooks of the non-op functions inside the ops cost (taken out of the
 * ops' times: program.hooks_ns), flushed with them. */
extern TP_TLS uint64_t tp_cpu_hook_ticks;
void tp_cpu_ops_flush(void);
static inline void tp_cpu_in_op(uint64_t ticks, uint64_t hook_ticks)
{
    tp_cpu_ops_ticks += ticks;
    if (hook_ticks) /* only under -finstrument-functions' correction */
        tp_cpu_hook_ticks += hook_ticks;
    if (tp_unlikely(tp_cpu_ops_ticks >= TP_CPU_OPS_BATCH))
        tp_cpu_ops_flush();
}

/* On a thread the program started, before its function runs: its start time, and the key whose
 * destructor reads its figures at its end. Call with the guard held (pthread_setspecific may
 * allocate). */
void tp_cpu_thread_begin(void);
/* The report's threads[] and the program's CPU figures, load average and CPUs allowed. Needs
 * program.wall_ns set. */
void tp_cpu_collect(struct tp_report *r);
/* At tprof's start, on the thread starting it: the CPU it has used so far, left out of its
 * figures at the report. */
void tp_cpu_start(void);
/* In a fork child: the parent's ended threads are not the child's. */
void tp_cpu_fork_child(void);

/* The unit of a heap block's lifetime: what "freed within the step that allocated it" means when
 * the heap peak is split into persistent and transient bytes (heap.h, tp_heap_unit_end()).
 *
 * The unit is a step when there are steps: each call of the TPROF_STEP function, or the span
 * between two tprof_step() markers. Without them it is an outermost op call (an op begun with no
 * op open on its thread), until an op is seen to be the step: an op whose outermost call enclosed
 * another op and is followed by another outermost call of the same op, with none of another op
 * between (ops that enclose none, and allocator or free functions, may run between: a graph's
 * compute, between whose calls its inputs are set and its buffers freed), and is no allocator
 * or free function, is a candidate; the candidate that encloses the most op time is the unit,
 * and the outermost calls of other ops no longer end one, unless the op is later found too short
 * to time (track/ops/demote.c) or another op enclosing one runs between two of its calls (it is a
 * layer): a getter that calls another op, called twice in a row while a config is parsed, is not
 * the step, nor is the buffer-free function called as often as a graph's compute. A step belongs to the process:
 * any thread's step or outermost op call ends the unit. ops.c tells this file where steps and
 * outermost op calls begin and end. */
/* With no TPROF_STEP, a ggml graph-compute function's calls are the steps from now on. */
void tp_lifeunit_step_function(void);
/* A step of the TPROF_STEP function ended (the outermost call on its thread). */
void tp_lifeunit_step_end(void);
/* A tprof_step() marker: it ends a unit. */
void tp_lifeunit_mark(void);

/* The calling thread's outermost op call has enclosed another op. */
extern TP_TLS int tp_lifeunit_nested;
/* The last outermost op call to end: its op + 1 (0 for none), negated if it enclosed no op. */
extern _Atomic int tp_lifeunit_last_outer;
/* Op id began with no op open on this thread / an op began inside another. Only a second
 * outermost call in a row of an op that enclosed another can make it the step: the others are
 * told apart here, inline. */
void tp_lifeunit_outer_begin(int id);
static inline void tp_lifeunit_op_begin(int depth_before, int id)
{
    if (depth_before != 0) {
        tp_lifeunit_nested = 1;
    } else {
        tp_lifeunit_nested = 0;
        if (atomic_load_explicit(&tp_lifeunit_last_outer, memory_order_relaxed) == id + 1)
            tp_lifeunit_outer_begin(id);
    }
}
/* The outermost op call on this thread, of op id, ended, `ticks` long; never: the op is an
 * allocator or free function (tp_lifeunit_never_step of its name, kept in its record). */
void tp_lifeunit_outer_end(int id, uint64_t ticks, int never);
/* A name with "alloc" or "free" in it (any case): a buffer's allocator or free function, which
 * encloses other ops and repeats but is never the step; nor a ggml graph node's function (the
 * graph's compute is). */
int tp_lifeunit_never_step(const char *name);
/* The share of all outermost op time that the detected step's calls enclosed (0 without one). */
double tp_lifeunit_detected_share(void);
/* With no step detected: the candidate turned down only for enclosing under 10% of the outermost
 * op time, the one enclosing the most (its op id, its share in *share), or -1. */
int tp_lifeunit_turned_down(double *share);

/* Op id was demoted to a count: if it was the detected step, it is not any more. */
void tp_lifeunit_demoted(int id);

/* What the unit was, for the report. */
enum tp_unit_kind {
    TP_UNIT_NONE,     /* no unit ended: no split */
    TP_UNIT_OP_CALL,  /* an outermost op call */
    TP_UNIT_DETECTED, /* the calls of one op, found to be the step (*op) */
    TP_UNIT_STEP,     /* the TPROF_STEP function */
    TP_UNIT_MARK,     /* tprof_step() markers */
};
/* The kind, and for TP_UNIT_DETECTED the op's id in *op (-1 otherwise). */
enum tp_unit_kind tp_lifeunit_kind(int *op);

/* A forked child counts its own units. */
void tp_lifeunit_fork_child(void);

/* What the CPUs did during the recorded steps (track/steps/stepcpu.c): the process's CPU time, and the
 * time on a CPU and in the run queue of the thread that ran the steps. track/steps/steps.c reads them
 * at each step's start and end. */
/* The figures at one moment. */
struct tp_stepcpu_at {
    uint64_t proc;   /* the process's CPU time */
    uint64_t thread; /* this thread's CPU time */
    uint64_t wait;   /* this thread's run-queue delay so far */
    int thread_ok;   /* thread is this thread's (0: another thread's, or unreadable) */
    int wait_ok;     /* wait was read */
};

/* At a step's start, just before its start time is taken: the run-queue delay first (its file
 * costs a few microseconds, kept out of the step), then the clocks. */
void tp_stepcpu_start(struct tp_stepcpu_at *a);
/* At a step's end, just after its end time: the clocks first, then the run-queue delay. */
void tp_stepcpu_read(struct tp_stepcpu_at *a);
/* A recorded step from a0 to a1 took wall_ns: add it in. */
void tp_stepcpu_step(const struct tp_stepcpu_at *a0, const struct tp_stepcpu_at *a1,
                     uint64_t wall_ns);

/* The recorded steps (warm-up ones included): their wall time, the process's CPU time during
 * them, and the time on a CPU and in the run queue of the thread that ran them (thread_known /
 * runq_known 0 when some step's could not be had: no schedstat, a step begun and ended by
 * different threads' marks, or steps too short to read the run queue at). */
struct tp_steps_cpu {
    uint64_t wall_ns, cpu_ns, thread_cpu_ns, runq_ns;
    int thread_known, runq_known;
};
void tp_steps_cpu(struct tp_steps_cpu *c);
/* In a fork child: the child's steps start from none. */
void tp_stepcpu_fork_child(void);

/* How many threads ran the program's code, for the report's program.threads.
 *
 * Two counts here, and a third at the report (track/steps/cpu.c: the threads listed in threads[], plus
 * those ended past its room), and the report gives the largest (each is a lower bound of the
 * truth); so program.threads is never less than threads[]'s length, and more only by threads
 * that ended without tprof's pthread_create (made with clone, or by tprof's own calls):
 *  - threads seen by tprof's hooks: each thread counts once, at the first allocation or op it
 *    makes; this keeps threads that had already exited at the report;
 *  - the most threads /proc/self/status showed at once, less tprof's own: this keeps threads
 *    that never reach a hook, such as an OpenMP or OpenBLAS pool's workers computing inside a
 *    BLAS call whose op is counted on the caller's thread. It is read when the first op begins
 *    (a BLAS library starts its pool when it is loaded, and may join it before tprof's report)
 *    and at each report (an OpenMP pool stays until exit). */
extern TP_TLS int tp_thread_counted;
void tp_thread_first(void);

/* A hook on this thread recorded something: count the thread if it is new. */
static inline void tp_thread_note(void)
{
    if (tp_unlikely(!tp_thread_counted))
        tp_thread_first();
}

/* Read /proc/self/status now, keeping the largest number of the program's threads seen. */
void tp_threads_sample(void);
/* The report's figure: a fresh sample, then the larger of the two counts. */
uint64_t tp_threads_ran(void);
/* In a fork child: the calling thread alone. */
void tp_threads_fork_child(void);

#endif
