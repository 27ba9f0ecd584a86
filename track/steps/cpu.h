/* What each of the program's threads got of the CPUs: time on a CPU, time runnable but waiting
 * for one (the run queue), context switches, from the kernel's per-thread files.
 *
 * A thread's figures vanish with it, so each thread the program starts through pthread_create
 * (preload/hook_thread.c) reads its own when it ends, in a thread-specific key's destructor (it
 * runs on return from the thread's function and on pthread_exit); threads alive at the report
 * are read then, from /proc/self/task. tprof's own threads are left out. */
#ifndef TPROF_CPU_H
#define TPROF_CPU_H

#include <stdint.h>

#include "track/runtime.h"

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

#endif
