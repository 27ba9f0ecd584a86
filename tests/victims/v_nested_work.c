/* The FLOPs on one op and the time on another (tests/verdict_nested.sh), as in darknet built -O1:
 * gemm, whose FLOPs a TPROF_WORK entry gives from m, n and k, does nothing but call gemm_cpu,
 * which calls gemm_nn; neither has an entry, and gemm_nn does the multiply-adds. 20 calls at
 * 96 x 96 x 96. Prints a checksum. */
#include <stdio.h>

enum { N = 96 };
static float a[N * N], b[N * N], c[N * N];

__attribute__((noinline)) void gemm_nn(int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int p = 0; p < k; p++)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] += s;
        }
}

__attribute__((noinline)) void gemm_cpu(int m, int n, int k)
{
    gemm_nn(m, n, k);
}

__attribute__((noinline)) void gemm(int m, int n, int k)
{
    gemm_cpu(m, n, k);
}

int main(void)
{
    for (int i = 0; i < N * N; i++) {
        a[i] = (float)(i % 7) / 7;
        b[i] = (float)(i % 5) / 5;
    }
    for (int r = 0; r < 20; r++)
        gemm(N, N, N);
    printf("sum %.0f\n", (double)c[N + 1]);
    return 0;
}
