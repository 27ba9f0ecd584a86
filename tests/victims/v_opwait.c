/* An op that waits for another thread, made with the annotation API (tprof_region_begin/end): op
 * "opwait_MODE" reads the clock (the mark) and waits for a thread that sleeps until 250 ms past
 * the mark and then lets it go. The op waits at least that long less the few instructions
 * between the mark and the wait, and works next to nothing. MODE is the way it waits:
 *   barrier: pthread_barrier_wait        cond: pthread_cond_wait on a flag
 *   sem:     sem_wait                    join: pthread_join of that thread
 *   condtimed, semtimed: pthread_cond_timedwait and sem_timedwait, with a deadline a minute off
 *   condclock, semclock: pthread_cond_clockwait and sem_clockwait, on CLOCK_MONOTONIC, alike
 *   futex:   FUTEX_WAIT_PRIVATE through syscall() on a word
 *   yield:   sched_yield in a loop until a flag is set
 * Prints "done MODE". */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <tprof.h>
#include <unistd.h>

#define SLEEP_NS 250000000LL

static const char *mode;
static pthread_barrier_t barrier;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static _Atomic long long mark_ns; /* CLOCK_MONOTONIC, 0 until the main thread set it */
static _Atomic int flag;

static int is(const char *m)
{
    return !strcmp(mode, m);
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleep until SLEEP_NS after the main thread's mark (polled with short sleeps, which are no
 * waiting call tprof times). */
static void sleep_past_mark(void)
{
    struct timespec ms = {0, 1000000};
    while (!atomic_load(&mark_ns))
        nanosleep(&ms, NULL);
    long long t = atomic_load(&mark_ns) + SLEEP_NS;
    struct timespec until = {(time_t)(t / 1000000000LL), (long)(t % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0)
        ;
}

static void *late(void *arg)
{
    (void)arg;
    sleep_past_mark();
    if (is("barrier")) {
        pthread_barrier_wait(&barrier);
    } else if (is("cond") || is("condtimed") || is("condclock")) {
        pthread_mutex_lock(&lock);
        atomic_store(&flag, 1);
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&lock);
    } else if (is("sem") || is("semtimed") || is("semclock")) {
        sem_post(&sem);
    } else if (is("futex")) {
        atomic_store(&flag, 1);
        syscall(SYS_futex, &flag, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    } else {
        atomic_store(&flag, 1); /* yield; join: the thread's end is what is waited for */
    }
    return NULL;
}

static void wait_for_late(pthread_t t)
{
    struct timespec deadline, mono;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 60;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    mono.tv_sec += 60;
    if (is("barrier")) {
        pthread_barrier_wait(&barrier);
    } else if (is("cond")) {
        pthread_mutex_lock(&lock);
        while (!atomic_load(&flag))
            pthread_cond_wait(&cond, &lock);
        pthread_mutex_unlock(&lock);
    } else if (is("condtimed")) {
        pthread_mutex_lock(&lock);
        while (!atomic_load(&flag))
            pthread_cond_timedwait(&cond, &lock, &deadline);
        pthread_mutex_unlock(&lock);
    } else if (is("condclock")) {
        pthread_mutex_lock(&lock);
        while (!atomic_load(&flag))
            pthread_cond_clockwait(&cond, &lock, CLOCK_MONOTONIC, &mono);
        pthread_mutex_unlock(&lock);
    } else if (is("semclock")) {
        while (sem_clockwait(&sem, CLOCK_MONOTONIC, &mono) != 0)
            ;
    } else if (is("sem")) {
        while (sem_wait(&sem) != 0)
            ;
    } else if (is("semtimed")) {
        while (sem_timedwait(&sem, &deadline) != 0)
            ;
    } else if (is("futex")) {
        while (!atomic_load(&flag))
            syscall(SYS_futex, &flag, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    } else if (is("join")) {
        pthread_join(t, NULL);
    } else {
        while (!atomic_load(&flag))
            sched_yield();
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"barrier",  "cond",     "condtimed", "condclock", "sem",
                                        "semtimed", "semclock", "futex",     "join",      "yield"};
    char op[32];
    pthread_t t;
    mode = argc > 1 ? argv[1] : "";
    int known = 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        known |= is(modes[i]);
    if (!known)
        return 2;
    pthread_barrier_init(&barrier, NULL, 2);
    sem_init(&sem, 0, 0);
    if (pthread_create(&t, NULL, late, NULL) != 0)
        return 2;
    snprintf(op, sizeof op, "opwait_%s", mode);
    tprof_region_begin(op);
    atomic_store(&mark_ns, now_ns());
    wait_for_late(t);
    tprof_region_end(op);
    if (!is("join"))
        pthread_join(t, NULL);
    pthread_barrier_destroy(&barrier);
    sem_destroy(&sem);
    printf("done %s\n", mode);
    return 0;
}
