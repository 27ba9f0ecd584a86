/* What a TPROF_WORK entry adds to an instrumented op's call: N calls of tiny_gemv(x, 64, 32), an
 * op by name whose body is next to nothing, so that a call's time is the hooks'. Run under
 * libtprof.so with TPROF_OPS=tiny_gemv, with and without
 * TPROF_WORK='tiny_gemv: flops=2*rows*cols bytes=4*(rows*cols+rows+cols)' (bench/run_work.sh).
 * Prints "<N> calls <ns> ns/call", timing only the loop. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile float sink;

__attribute__((noinline)) void tiny_gemv(const float *x, int rows, int cols)
{
    sink += x[rows % 4] + (float)cols;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

__attribute__((noinline)) static void storm(const float *x, long n)
{
    for (long i = 0; i < n; i++)
        tiny_gemv(x, 64, 32);
}

int main(int argc, char **argv)
{
    static const float x[4] = {1, 2, 3, 4};
    long n = argc > 1 ? atol(argv[1]) : 0;
    if (n <= 0) {
        fprintf(stderr, "usage: work_storm N\n");
        return 2;
    }
    storm(x, n < 1000 ? n : 1000); /* first calls: lookups, DWARF */
    double t0 = now_ns();
    storm(x, n);
    double t = now_ns() - t0;
    printf("%ld calls %.3f ns/call\n", n, t / (double)n);
    return 0;
}
