/* Calls gemm and im2col_cpu (tests/victims/libtpdkn.c) with known arguments
 * (tests/work_builtin.sh): im2col_cpu 3 times with 3 channels of 8 x 10, a 3 x 3 kernel, stride 1,
 * pad 1, and twice with 2 channels of 9 x 7, 3 x 3, stride 2, pad 0; gemm 4 times at M 4, N 5,
 * K 6 with BETA 1, and once with BETA 0. argv[1] "thread": a second thread is alive, waiting,
 * before the first call. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "v_dkn.h"

static float im[3 * 8 * 10], col[3 * 9 * 8 * 10], a[4 * 6], b[6 * 5], c[4 * 5];

static void *wait_forever(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (argc > 1 && !strcmp(argv[1], "thread") && pthread_create(&t, NULL, wait_forever, NULL))
        return 1;
    for (int i = 0; i < 3 * 8 * 10; i++)
        im[i] = (float)(i % 7);
    for (int i = 0; i < 3; i++)
        im2col_cpu(im, 3, 8, 10, 3, 1, 1, col);
    double s = col[100];
    for (int i = 0; i < 2; i++)
        im2col_cpu(im, 2, 9, 7, 3, 2, 0, col);
    s += col[50];
    for (int i = 0; i < 24; i++)
        a[i] = (float)(i % 5);
    for (int i = 0; i < 30; i++)
        b[i] = (float)(i % 3);
    for (int i = 0; i < 4; i++)
        gemm(0, 0, 4, 5, 6, 1, a, 6, b, 5, 1, c, 5);
    gemm(0, 0, 4, 5, 6, 1, a, 6, b, 5, 0, c, 5);
    printf("%.1f %.1f\n", s, (double)c[7]);
    return 0;
}
