/* Reports while the program runs: on demand (TPROF_SIGNAL) and periodic snapshots
 * (TPROF_SNAPSHOT), both written by one thread of ours.
 *
 * The signal handler (shim_signal.c) only posts a semaphore (async-signal-safe); the thread,
 * which blocks every signal so it never takes the program's, wakes up and writes the report
 * outside any handler. A snapshot overwrites the regular report files (atomically, by rename),
 * so a SIGKILL or an OOM kill leaves a report at most one period old; an on-demand report gets a
 * new numbered file. */
#include <errno.h>
#include <semaphore.h>
#include <time.h>

#include "preload/lifecycle.h"
#include "preload/reporter.h"
#include "track/out/out.h"
#include "track/runtime.h"

static sem_t wake;
static _Atomic int requests;
static int started;

void tp_reporter_request(void)
{
    atomic_fetch_add(&requests, 1);
    sem_post(&wake);
}

static void *loop(void *arg)
{
    (void)arg;
    tp_guard = 1; /* everything this thread allocates is tprof's own */
    /* A report of this thread's may still be in progress as the program exits: it must not take
     * itself for the report that ends the process (track/out/collect.c). */
    tp_collect_interim_thread();
    int sig_seq = 0;
    for (;;) {
        int timed_out = 0;
        if (tp_cfg.snapshot_s > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            double whole = (double)(long)tp_cfg.snapshot_s;
            ts.tv_sec += (time_t)whole;
            ts.tv_nsec += (long)((tp_cfg.snapshot_s - whole) * 1e9);
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            while (sem_timedwait(&wake, &ts) < 0) {
                if (errno == ETIMEDOUT) {
                    timed_out = 1;
                    break;
                }
            }
        } else {
            while (sem_wait(&wake) < 0)
                ;
        }
        if (atomic_load(&tp_state) >= TP_FINISHING)
            break;
        while (atomic_load(&requests) > 0) {
            atomic_fetch_sub(&requests, 1);
            tp_report_now("signal", ++sig_seq);
        }
        if (timed_out)
            tp_report_now("snapshot", 0);
    }
    return NULL;
}

void tp_reporter_start(void)
{
    if (started || (!tp_cfg.signal && tp_cfg.snapshot_s <= 0))
        return;
    started = 1;
    sem_init(&wake, 0, 0);
    if (tp_start_thread(loop) != 0)
        tp_warn("cannot start the report thread: TPROF_SIGNAL and TPROF_SNAPSHOT are off");
}

void tp_reporter_fork_child(void)
{
    /* The thread did not survive the fork; start another for the child. */
    if (started) {
        started = 0;
        tp_reporter_start();
    }
}
