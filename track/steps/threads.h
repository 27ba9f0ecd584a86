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
#ifndef TPROF_THREADS_H
#define TPROF_THREADS_H

#include <stdint.h>

#include "track/runtime.h"

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
