/* Work or wait: the time the program's threads spend waiting for each other rather than working.
 *
 * Two ways in. The waiting calls a program makes (sched_yield, pthread barriers, condition
 * variables, semaphores, pthread_join, futex waits through syscall()) are interposed
 * (preload/hook_wait.c) and timed exactly: their wall time goes to the innermost op open on the
 * calling thread (to the op another thread is in when none is open here, as CPU samples are) and
 * to the thread's own total. Spinning that never calls into the kernel (libgomp's barriers and
 * spin loops with OMP_WAIT_POLICY=active) is seen by the CPU-time sampler (track/out/sample.c): a
 * sample whose program counter lies in the text of an OpenMP runtime is a spin sample. The work
 * of a parallel region runs in the program's own outlined functions, never in the runtime's text,
 * so the runtime's own time is its scheduling, barriers and waiting.
 *
 * Everything the sampler calls here is async-signal-safe: atomics and fixed tables only. */
#ifndef TPROF_WAIT_H
#define TPROF_WAIT_H

#include <stddef.h>
#include <stdint.h>

/* Kinds of hooked wait, as bits (an op's set goes to the report's wording). */
enum tp_wait_kind {
    TP_WAIT_YIELD = 1,   /* sched_yield */
    TP_WAIT_BARRIER = 2, /* pthread_barrier_wait */
    TP_WAIT_COND = 4,    /* pthread_cond_wait, pthread_cond_timedwait, pthread_cond_clockwait */
    TP_WAIT_SEM = 8,     /* sem_wait, sem_timedwait, sem_clockwait */
    TP_WAIT_JOIN = 16,   /* pthread_join */
    TP_WAIT_FUTEX = 32,  /* FUTEX_WAIT* through syscall() */
};

/* A hooked waiting call: tp_wait_enter before the real call returns its start tick (0 when
 * nothing is recorded: tprof not running, or its own call); tp_wait_leave after it charges the
 * time. The depth kept between them makes the samples taken inside the call wait samples, and a
 * wait nested in another (sem_wait's futex) counted once. */
uint64_t tp_wait_enter(void);
void tp_wait_leave(uint64_t t0, unsigned kind);

/* The class of a CPU-time sample on this thread (called from the SIGPROF handler). */
enum tp_sample_class { TP_SAMPLE_WORK, TP_SAMPLE_SPIN, TP_SAMPLE_INWAIT };
enum tp_sample_class tp_wait_classify(uintptr_t pc);
/* Count a spin or in-wait sample to this thread's figures. Async-signal-safe. */
void tp_wait_thread_sample(enum tp_sample_class c);

/* The OpenMP runtimes' text ranges, found again after each dlopen (and at start). Not from a
 * signal handler. After a dlclose, tp_wait_remap_modules starts the list afresh (a sample taken
 * while it is rewritten may be classed by a range that just went: one sample, not a crash). */
void tp_wait_map_modules(void);
void tp_wait_remap_modules(void);

/* Each of the report's threads[]: its wait_ns and wait_spin_ns (a spin sample stands for the
 * samples' period: r->samples.hz set first). */
struct tp_report;
void tp_wait_collect(struct tp_report *r);

void tp_wait_fork_child(void);

#endif
