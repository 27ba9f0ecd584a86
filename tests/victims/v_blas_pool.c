/* OpenBLAS's own worker threads: cblas_sgemm large enough that a threaded OpenBLAS splits each
 * call across its pool (OPENBLAS_NUM_THREADS=2 in tests/blas_pool.sh). The program allocates its
 * operands per call. It prints the threads it has after the calls (more than one: the BLAS runs
 * a pool) and a checksum of every product, which must not change under tprof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);

enum { ROW = 101, NOTRANS = 111, N = 384, CALLS = 5 };

void *operand(size_t n) { return malloc(n); }

static int threads_now(void)
{
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Threads:", 8))
            n = atoi(line + 8);
    fclose(f);
    return n;
}

int main(void)
{
    double sum = 0;
    for (int c = 0; c < CALLS; c++) {
        float *a = operand(sizeof(float) * N * N), *b = operand(sizeof(float) * N * N);
        float *p = operand(sizeof(float) * N * N);
        if (!a || !b || !p)
            return 1;
        for (int i = 0; i < N * N; i++) {
            a[i] = (float)((i * 7 + c) % 13) / 13.0f;
            b[i] = (float)((i * 5 + 3 * c) % 11) / 11.0f;
        }
        cblas_sgemm(ROW, NOTRANS, NOTRANS, N, N, N, 1.0f, a, N, b, N, 0.0f, p, N);
        for (int i = 0; i < N * N; i += 97)
            sum += p[i];
        free(a);
        free(b);
        free(p);
    }
    printf("threads %d\nchecksum %.6e\n", threads_now(), sum);
    return 0;
}
