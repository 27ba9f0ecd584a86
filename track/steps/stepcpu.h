/* What the CPUs did during the recorded steps (track/steps/stepcpu.c): the process's CPU time, and the
 * time on a CPU and in the run queue of the thread that ran the steps. track/steps/steps.c reads them
 * at each step's start and end. */
#ifndef TPROF_STEPCPU_H
#define TPROF_STEPCPU_H

#include <stdint.h>

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

#endif
