/* Two threads, one inside an op (an annotated region, "held") while the other sleeps 200 ms
 * outside every op. With no argument the main thread holds the op and a helper sleeps; with
 * "main-sleeps" a helper holds the op and the main thread sleeps. With "spin-in-op" a helper
 * spins 300 ms of its CPU time while the main thread holds the op (a pool's worker computing for
 * it); with "spin-outside", while no op runs. Prints "ok". */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <tprof.h>

static void nap(void)
{
    struct timespec ts = {0, 200000000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void *sleeper(void *arg)
{
    (void)arg;
    nap();
    return NULL;
}

static void *spinner(void *arg)
{
    (void)arg;
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
    return NULL;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int state; /* 1: the helper is in its op; 2: the main thread has slept */

static void *holder(void *arg)
{
    (void)arg;
    tprof_region_begin("held");
    pthread_mutex_lock(&mu);
    state = 1;
    pthread_cond_broadcast(&cv);
    while (state != 2)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    tprof_region_end("held");
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (argc > 1 && !strcmp(argv[1], "main-sleeps")) {
        if (pthread_create(&t, NULL, holder, NULL) != 0)
            return 1;
        /* the sleep starts once the helper is inside its op, so all of it is outside every op
         * on this thread while the helper's op covers it */
        pthread_mutex_lock(&mu);
        while (state != 1)
            pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
        nap();
        pthread_mutex_lock(&mu);
        state = 2;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
        pthread_join(t, NULL);
    } else if (argc > 1 && !strncmp(argv[1], "spin-", 5)) {
        int in_op = !strcmp(argv[1], "spin-in-op");
        tprof_region_begin("held");
        if (!in_op)
            tprof_region_end("held");
        if (pthread_create(&t, NULL, spinner, NULL) != 0)
            return 1;
        pthread_join(t, NULL);
        if (in_op)
            tprof_region_end("held");
    } else {
        tprof_region_begin("held");
        if (pthread_create(&t, NULL, sleeper, NULL) != 0)
            return 1;
        pthread_join(t, NULL);
        tprof_region_end("held");
    }
    puts("ok");
    return 0;
}
