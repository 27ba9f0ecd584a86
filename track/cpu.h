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

struct tp_report;

/* On a thread the program started, before its function runs: its start time, and the key whose
 * destructor reads its figures at its end. Call with the guard held (pthread_setspecific may
 * allocate). */
void tp_cpu_thread_begin(void);
/* The report's threads[] and the program's CPU figures, load average and CPUs allowed. Needs
 * program.wall_ns set. */
void tp_cpu_collect(struct tp_report *r);
/* In a fork child: the parent's ended threads are not the child's. */
void tp_cpu_fork_child(void);

#endif
