/* The calls a program waits in for its other threads, interposed so that their wall time is
 * charged as waiting (track/ops/wait.c): sched_yield (OpenBLAS's idle loop, hand-made spin loops),
 * pthread_barrier_wait, pthread_cond_wait, pthread_cond_timedwait and pthread_cond_clockwait,
 * sem_wait, sem_timedwait and sem_clockwait (CPython's locks), pthread_join; futex waits made through syscall() are preload/shim_clone.c's.
 *
 * Each wrapper reads the tick clock around the real call and adds atomics: a few ns against a
 * system call. The real functions are as safe as they were: the wrappers allocate nothing, take
 * no lock and leave errno as the real call set it. A thread cancelled inside a wait (these are
 * cancellation points) leaves its wait uncounted: it ends there. pthread_cond_wait's old version
 * (GLIBC_2.2.5) is not interposed apart: a program linked against it gets the current one. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <time.h>

#include "preload/real.h"
#include "preload/shim.h"
#include "track/ops/ops.h"

static struct tp_real real_yield = {"sched_yield"}, real_barrier = {"pthread_barrier_wait"},
                      real_cond = {"pthread_cond_wait"}, real_timed = {"pthread_cond_timedwait"},
                      real_sem = {"sem_wait"}, real_semtimed = {"sem_timedwait"},
                      real_join = {"pthread_join"}, real_clock = {"pthread_cond_clockwait"},
                      real_semclock = {"sem_clockwait"};

/* The real function, or NULL after saying that it is missing. */
static void *real_or_missing(struct tp_real *r)
{
    void *f = tp_real_fn(r);
    if (!f)
        tp_real_missing(r);
    return f;
}

TP_EXPORT TP_NOINSTR int sched_yield(void)
{
    int (*real)(void) = (int (*)(void))real_or_missing(&real_yield);
    if (!real)
        return 0; /* yielding nothing is still a correct sched_yield */
    uint64_t t0 = tp_wait_enter();
    int rc = real();
    tp_wait_leave(t0, TP_WAIT_YIELD);
    return rc;
}

TP_EXPORT TP_NOINSTR int pthread_barrier_wait(pthread_barrier_t *b)
{
    int (*real)(pthread_barrier_t *) = (int (*)(pthread_barrier_t *))real_or_missing(&real_barrier);
    if (!real)
        return EINVAL;
    uint64_t t0 = tp_wait_enter();
    int rc = real(b);
    tp_wait_leave(t0, TP_WAIT_BARRIER);
    return rc;
}

TP_EXPORT TP_NOINSTR int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    typedef int (*fn)(pthread_cond_t *, pthread_mutex_t *);
    fn real = (fn)real_or_missing(&real_cond);
    if (!real)
        return EINVAL;
    uint64_t t0 = tp_wait_enter();
    int rc = real(c, m);
    tp_wait_leave(t0, TP_WAIT_COND);
    return rc;
}

TP_EXPORT TP_NOINSTR int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                const struct timespec *at)
{
    typedef int (*fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    fn real = (fn)real_or_missing(&real_timed);
    if (!real)
        return EINVAL;
    uint64_t t0 = tp_wait_enter();
    int rc = real(c, m, at);
    tp_wait_leave(t0, TP_WAIT_COND);
    return rc;
}

TP_EXPORT TP_NOINSTR int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                clockid_t clock, const struct timespec *at)
{
    typedef int (*fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
    fn real = (fn)real_or_missing(&real_clock);
    if (!real)
        return EINVAL;
    uint64_t t0 = tp_wait_enter();
    int rc = real(c, m, clock, at);
    tp_wait_leave(t0, TP_WAIT_COND);
    return rc;
}

TP_EXPORT TP_NOINSTR int sem_wait(sem_t *s)
{
    int (*real)(sem_t *) = (int (*)(sem_t *))real_or_missing(&real_sem);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    uint64_t t0 = tp_wait_enter();
    int rc = real(s);
    tp_wait_leave(t0, TP_WAIT_SEM);
    return rc;
}

TP_EXPORT TP_NOINSTR int sem_timedwait(sem_t *s, const struct timespec *at)
{
    typedef int (*fn)(sem_t *, const struct timespec *);
    fn real = (fn)real_or_missing(&real_semtimed);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    uint64_t t0 = tp_wait_enter();
    int rc = real(s, at);
    tp_wait_leave(t0, TP_WAIT_SEM);
    return rc;
}

TP_EXPORT TP_NOINSTR int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *at)
{
    typedef int (*fn)(sem_t *, clockid_t, const struct timespec *);
    fn real = (fn)real_or_missing(&real_semclock);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    uint64_t t0 = tp_wait_enter();
    int rc = real(s, clock, at);
    tp_wait_leave(t0, TP_WAIT_SEM);
    return rc;
}

TP_EXPORT TP_NOINSTR int pthread_join(pthread_t t, void **ret)
{
    int (*real)(pthread_t, void **) = (int (*)(pthread_t, void **))real_or_missing(&real_join);
    if (!real)
        return ESRCH;
    uint64_t t0 = tp_wait_enter();
    int rc = real(t, ret);
    tp_wait_leave(t0, TP_WAIT_JOIN);
    return rc;
}
