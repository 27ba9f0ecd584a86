/* A training loop with known ops, threads and heap for the timeline, the flame graphs and the
 * step schedule: v_trace [STEPS [INNER]].
 *   - parameters: 3 blocks of 64 KiB, allocated before the first step, freed at the end;
 *   - step k (0-based): one 1 MiB activation buffer, freed at the end of the step, and INNER
 *     calls of layer_forward, each calling small_matmul k+1 times;
 *   - before the steps, a thread named "loader" calls conv_layer (which calls small_matmul) 10
 *     times; the main thread is named "trainer".
 * Built with -finstrument-functions: TPROF_OPS picks the ops, TPROF_STEP=train_step the steps. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

static void small_matmul(double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n * n; i++)
        s += a[i] * 1.0001;
    sink += s;
}

static void layer_forward(double *a, int reps)
{
    for (int r = 0; r < reps; r++)
        small_matmul(a, 16);
}

static void conv_layer(double *a)
{
    small_matmul(a, 8);
}

static void *loader(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "loader");
    double buf[64] = {0};
    for (int i = 0; i < 10; i++)
        conv_layer(buf);
    return NULL;
}

static void train_step(int k, int inner)
{
    double *act = malloc(1 << 20);
    if (!act)
        exit(1);
    memset(act, 0, 1 << 20);
    for (int i = 0; i < inner; i++)
        layer_forward(act, k + 1);
    free(act);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int inner = argc > 2 ? atoi(argv[2]) : 1;
    pthread_setname_np(pthread_self(), "trainer");
    void *params[3];
    for (int i = 0; i < 3; i++) {
        params[i] = malloc(64 << 10);
        if (!params[i])
            return 1;
        memset(params[i], 1, 64 << 10);
    }
    pthread_t t;
    if (pthread_create(&t, NULL, loader, NULL) != 0)
        return 1;
    /* The loader is done before the first step, so a TPROF_SCHEDULE window holds no call of it. */
    pthread_join(t, NULL);
    for (int k = 0; k < steps; k++)
        train_step(k, inner);
    for (int i = 0; i < 3; i++)
        free(params[i]);
    printf("steps %d inner %d done\n", steps, inner);
    return 0;
}
