/* An op that waits for another thread, made with the annotation API (tprof_region_begin/end).
 *
 * barrier: op "opwait_barrier" waits in pthread_barrier_wait for a thread that sleeps until 250 ms
 *   after the main thread read the clock just before the barrier: the op waits at least that long
 *   less the few instructions in between, and works next to nothing.
 * yield: op "opwait_yield" calls sched_yield in a loop until another thread, asleep 250 ms after
 *   the op began, sets a flag.
 * Prints "done MODE". */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tprof.h>

#define SLEEP_NS 250000000L

static pthread_barrier_t barrier;
static _Atomic long long start_ns; /* CLOCK_MONOTONIC, 0 until the main thread set it */
static _Atomic int flag;

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
    while (!atomic_load(&start_ns))
        nanosleep(&ms, NULL);
    long long t = atomic_load(&start_ns) + SLEEP_NS;
    struct timespec until = {(time_t)(t / 1000000000LL), (long)(t % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0)
        ;
}

static void *late(void *arg)
{
    sleep_past_mark();
    if (arg)
        pthread_barrier_wait(&barrier);
    else
        atomic_store(&flag, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int bar = argc > 1 && !strcmp(argv[1], "barrier");
    pthread_t t;
    pthread_barrier_init(&barrier, NULL, 2);
    if (pthread_create(&t, NULL, late, bar ? &barrier : NULL) != 0)
        return 2;
    tprof_region_begin(bar ? "opwait_barrier" : "opwait_yield");
    atomic_store(&start_ns, now_ns());
    if (bar)
        pthread_barrier_wait(&barrier);
    else
        while (!atomic_load(&flag))
            sched_yield();
    tprof_region_end(bar ? "opwait_barrier" : "opwait_yield");
    pthread_join(t, NULL);
    pthread_barrier_destroy(&barrier);
    printf("done %s\n", bar ? "barrier" : "yield");
    return 0;
}
