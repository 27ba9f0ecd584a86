/* Four threads call mv_kernel (v_work_k.c) 2000 times each, thread t at (16 + t) x 32
 * (tests/cyg_work.sh): the work of calls made at once on several threads, the first ones while
 * the DWARF is being read. */
#include <pthread.h>
#include <stdio.h>

#include "v_work.h"

static float a[64 * 64], x[64], y[4][64];

static void *run(void *arg)
{
    long t = (long)arg;
    for (int i = 0; i < 2000; i++)
        mv_kernel(a, x, y[t], 16 + (int)t, 32);
    return NULL;
}

int main(void)
{
    pthread_t th[4];
    for (long t = 0; t < 4; t++)
        if (pthread_create(&th[t], NULL, run, (void *)t) != 0)
            return 1;
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    printf("%.1f\n", (double)y[0][0]);
    return 0;
}
