/* Two busy threads, "tp-busy-a" and "tp-busy-b", each spinning until it has had 150 ms of CPU
 * time (a fixed amount of work, whatever the machine's speed or load), then ending before the
 * report. With "spread", each thread pins itself to its own CPU of the allowed set (the first
 * and the second), so that neither waits for the other. Prints "done 2".
 *
 * With "steps": no threads; the main thread runs 3 steps (tprof_step() markers), each spinning
 * until it has had 60 ms more CPU time. Prints "done 3 steps". */
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tprof.h"

#define CPU_NS 150000000ull

static int spread;
/* Set by the main thread just before it joins: the busy threads wait for it before spinning, so
 * that the main thread is never left runnable behind them (under SCHED_FIFO, where equal
 * priorities do not preempt, it would wait for a CPU until one of them ended). */
static _Atomic int joining;

static unsigned long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The k-th CPU (from 0) of the process's affinity mask, -1 when there are fewer. */
static int nth_cpu(int k)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && k-- == 0)
            return c;
    return -1;
}

static void *busy(void *arg)
{
    int k = (int)(long)arg;
    pthread_setname_np(pthread_self(), k ? "tp-busy-b" : "tp-busy-a");
    if (spread) {
        int c = nth_cpu(k);
        cpu_set_t one;
        CPU_ZERO(&one);
        if (c >= 0) {
            CPU_SET(c, &one);
            pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        }
    }
    struct timespec ms = {0, 1000000};
    while (!atomic_load(&joining))
        nanosleep(&ms, NULL);
    volatile unsigned long long x = 0;
    while (thread_cpu_ns() < CPU_NS)
        for (int i = 0; i < 100000; i++)
            x += (unsigned long long)i;
    return NULL;
}

static int steps(void)
{
    volatile unsigned long long x = 0;
    tprof_step();
    for (int k = 0; k < 3; k++) {
        unsigned long long until = thread_cpu_ns() + 60000000ull;
        while (thread_cpu_ns() < until)
            for (int i = 0; i < 100000; i++)
                x += (unsigned long long)i;
        tprof_step();
    }
    printf("done 3 steps\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "steps"))
        return steps();
    spread = argc > 1 && !strcmp(argv[1], "spread");
    int cpus[2] = {nth_cpu(0), nth_cpu(1)};
    if (spread && cpus[1] < 0)
        return 77; /* one CPU: nothing to spread over */
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, busy, (void *)i) != 0)
            return 1;
    atomic_store(&joining, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("done 2\n");
    return 0;
}
