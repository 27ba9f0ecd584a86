/* A stand-in BLAS whose cblas_sgemm allocates a workspace of m*n floats inside the call, as
 * OpenBLAS does inside each threaded sgemm (with a size that depends on its build): the bytes tprof
 * attributes to the op are then known exactly. */
#include <stdlib.h>
#include <string.h>

void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    /* row-major, no transposes: all the victim uses */
    (void)layout, (void)ta, (void)tb;
    float *w = malloc((size_t)m * (size_t)n * sizeof *w);
    if (!w)
        return;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int p = 0; p < k; p++)
                s += a[i * lda + p] * b[p * ldb + j];
            w[i * n + j] = alpha * s;
        }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[i * ldc + j] = w[i * n + j] + (beta != 0 ? beta * c[i * ldc + j] : 0);
    free(w);
}
