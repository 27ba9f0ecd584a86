/* Built with -finstrument-functions: two threads each run the op net_forward once, which runs
 * the op conv_forward and calls the non-op helper 100 times in each (TPROF_HOOK_NS takes a fixed
 * cost out of the ops' times for every such call). Argument "overlap": both threads are inside
 * conv_forward at once: they meet at a barrier in it, sleep 50 ms, and meet again before leaving.
 * "sequential": the second thread starts after the first has been joined, and nothing
 * overlaps. Exact figures in tests/op_wall.sh. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static __thread volatile long sink;
static pthread_barrier_t meet;
static int overlap;

static void helper(long i)
{
    sink += i;
}

static void conv_forward(void)
{
    if (overlap)
        pthread_barrier_wait(&meet);
    for (int i = 0; i < 100; i++)
        helper(i);
    struct timespec ts = {0, 50 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
    if (overlap)
        pthread_barrier_wait(&meet);
}

static void net_forward(void)
{
    conv_forward();
    for (int i = 0; i < 100; i++)
        helper(i);
}

static void *worker(void *arg)
{
    net_forward();
    return arg;
}

int main(int argc, char **argv)
{
    overlap = argc > 1 && !strcmp(argv[1], "overlap");
    pthread_barrier_init(&meet, NULL, 2);
    pthread_t t[2];
    long *ids = malloc(2 * sizeof *ids); /* the main thread allocates: a thread that ran */
    if (!ids)
        return 1;
    for (long i = 0; i < 2; i++) {
        ids[i] = i;
        pthread_create(&t[i], NULL, worker, &ids[i]);
        if (!overlap)
            pthread_join(t[i], NULL);
    }
    if (overlap)
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    printf("%s done\n", overlap ? "overlap" : "sequential");
    free(ids);
    return 0;
}
