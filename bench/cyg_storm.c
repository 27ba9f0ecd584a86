/* A storm of tiny calls: what tprof adds per call of a function that is not an
 * op, per op call, and per call of a shared library's op hooked through the PLT.
 *
 *   cyg_storm nonop N   N calls of leaf(), which no op pattern matches
 *   cyg_storm op N      N calls of tiny_gemm(), an op by name (*gemm*)
 *   cyg_storm plt N     N calls of storm_gemm() in libcygstorm.so, through the PLT
 *
 * Built twice from this file: bench/cyg_storm with -finstrument-functions, bench/cyg_storm_native
 * without. Prints "<mode> <N> calls <ns> ns/call", timing only the loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void storm_gemm(long i);

static volatile long sink;

__attribute__((noinline)) static void leaf(long i) { sink += i; }

__attribute__((noinline)) static void tiny_gemm(long i) { sink += i; }

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

__attribute__((noinline)) static void storm(int mode, long n)
{
    if (mode == 0)
        for (long i = 0; i < n; i++)
            leaf(i);
    else if (mode == 1)
        for (long i = 0; i < n; i++)
            tiny_gemm(i);
    else
        for (long i = 0; i < n; i++)
            storm_gemm(i);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"nonop", "op", "plt"};
    int mode = -1;
    long n = argc > 2 ? atol(argv[2]) : 0;
    for (int m = 0; m < 3 && argc > 1; m++)
        if (!strcmp(argv[1], modes[m]))
            mode = m;
    if (mode < 0 || n <= 0) {
        fprintf(stderr, "usage: cyg_storm nonop|op|plt N\n");
        return 2;
    }
    storm(mode, n < 1000 ? n : 1000); /* first calls: lookups, lazy binding */
    double t0 = now_ns();
    storm(mode, n);
    double t = now_ns() - t0;
    printf("%s %ld calls %.3f ns/call\n", modes[mode], n, t / (double)n);
    return 0;
}
