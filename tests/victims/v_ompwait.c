/* OpenMP with uneven work, in op "omp_uneven" (annotation API): a parallel region of two threads
 * where thread 1 spins until it has had 400 ms of CPU time (a fixed amount of work whatever the
 * machine's speed or load) and thread 0, the main thread with the op open, has nothing to do and
 * waits at the region's closing barrier: under OMP_WAIT_POLICY=active it spins there, in libgomp.
 *
 * With "onecpu" the process moves itself to one CPU after libgomp has started, before its threads
 * exist: libgomp counted the CPUs at its start and spins as on several, while the two threads
 * take turns on one (started on one CPU, libgomp would spin only briefly before sleeping).
 * With "noop" the same runs outside every op. With "worker" the roles swap: the main thread, with
 * the op open, has the work, and thread 1, a worker with no op open, spins at the barrier.
 * Prints "done 2" (the team's size). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tprof.h>

#define WORK_NS 400000000LL

static long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile unsigned long sink;

static void work(void)
{
    long long end = thread_cpu_ns() + WORK_NS;
    while (thread_cpu_ns() < end)
        for (int i = 0; i < 1000; i++)
            sink += (unsigned long)i;
}

/* The process on the first CPU it may use (the threads it creates from now on inherit it). */
static void one_cpu(void)
{
    cpu_set_t set, one;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_SET(c, &one);
            break;
        }
    sched_setaffinity(0, sizeof one, &one);
}

int main(int argc, char **argv)
{
    int team = 0, op = !(argc > 1 && !strcmp(argv[1], "noop"));
    int busy = argc > 1 && !strcmp(argv[1], "worker") ? 0 : 1; /* the thread with the work */
    if (argc > 1 && !strcmp(argv[1], "onecpu"))
        one_cpu();
    if (op)
        tprof_region_begin("omp_uneven");
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == busy)
            work();
#pragma omp single nowait
        team = omp_get_num_threads();
    }
    if (op)
        tprof_region_end("omp_uneven");
    printf("done %d\n", team);
    return 0;
}
