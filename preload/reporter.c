/* Reports while the program runs (issue 7): on demand (TPROF_SIGNAL) and periodic snapshots
 * (TPROF_SNAPSHOT), both written by one thread of ours.
 *
 * The signal handler only posts a semaphore (async-signal-safe); the thread, which blocks every
 * signal so it never takes the program's, wakes up and writes the report outside any handler.
 * A snapshot overwrites the regular report files (atomically, by rename), so a SIGKILL or an
 * OOM kill leaves a report at most one period old; an on-demand report gets a new numbered file. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "preload/exitpaths.h"
#include "track/runtime.h"
#include "preload/reporter.h"

static sem_t wake;
static _Atomic int requests;
static int started;
static struct sigaction host_action; /* what the program had for TPROF_SIGNAL */

static void on_report_signal(int sig, siginfo_t *si, void *uc)
{
    int e = errno;
    atomic_fetch_add(&requests, 1);
    sem_post(&wake);
    /* The program's own handler for that signal still runs. */
    if ((host_action.sa_flags & SA_SIGINFO) && host_action.sa_sigaction)
        host_action.sa_sigaction(sig, si, uc);
    else if (!(host_action.sa_flags & SA_SIGINFO) && host_action.sa_handler != SIG_DFL &&
             host_action.sa_handler != SIG_IGN)
        host_action.sa_handler(sig);
    errno = e;
}

/* A program that installs its own handler for TPROF_SIGNAL after we did would silently turn
 * reports on demand off: the sigaction and signal shims keep ours installed and record the
 * program's as the one to chain to, reporting the program's own previous action back to it.
 * The fatal signals whose default action tprof stands in for go to exitpaths.c, which installs
 * the program's actions for real. */
static int ours(int sig)
{
    return started && tp_cfg.signal && sig == tp_cfg.signal;
}

TP_EXPORT TP_NOINSTR int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    tp_sigaction_fn real = tp_real_sigaction();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (ours(sig)) {
        if (old) {
            *old = host_action;
            tp_exitpaths_view(sig, old);
        }
        if (act) {
            host_action = *act;
            tp_exitpaths_chain_action(sig, &host_action);
        }
        return 0;
    }
    if (tp_exitpaths_armed(sig))
        return tp_exitpaths_sigaction(sig, act, old);
    return real(sig, act, old);
}

TP_EXPORT TP_NOINSTR sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &old) < 0)
        return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
                                       : old.sa_handler;
}

static void *loop(void *arg)
{
    (void)arg;
    tp_guard = 1; /* everything this thread allocates is tprof's own */
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
    if (tp_cfg.signal) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_report_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        tp_sigaction_fn real = tp_real_sigaction();
        if (real)
            real(tp_cfg.signal, &sa, &host_action);
    }
    if (tp_start_thread(loop) != 0)
        tp_warn("cannot start the report thread: TPROF_SIGNAL and TPROF_SNAPSHOT are off");
}

int tp_start_thread(void *(*fn)(void *))
{
    /* The thread inherits this mask: it must never receive the program's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1024 * 1024); /* static TLS comes out of it too */
    int g = tp_guard;
    tp_guard = 1; /* its stack and thread descriptor are not the program's allocations */
    int rc = pthread_create(&t, &attr, fn, NULL) == 0 ? 0 : -1;
    tp_guard = g;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void tp_reporter_fork_child(void)
{
    /* The thread did not survive the fork; start another for the child. */
    if (started) {
        started = 0;
        tp_reporter_start();
    }
}
