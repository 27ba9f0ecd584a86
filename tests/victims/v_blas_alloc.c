/* Heap requested inside a BLAS call belongs to the op (tests/victims/libtpfakeblas.c allocates
 * m*n floats per cblas_sgemm); "parameters" that outlive every op call are persistent. */
#include <stdio.h>
#include <stdlib.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);

int main(void)
{
    float *params = malloc(1 << 20); /* 1 MiB, live to the end */
    float *act = malloc(64 * 64 * sizeof(float));
    if (!params || !act)
        return 1;
    for (int i = 0; i < (1 << 18); i++)
        params[i] = (float)(i % 3);
    for (int i = 0; i < 2; i++)
        cblas_sgemm(101, 111, 111, 64, 64, 32, 1, params, 32, params, 64, 0, act, 64);
    cblas_sgemm(101, 111, 111, 16, 8, 8, 1, params, 8, params, 8, 0, act, 8);
    printf("%.1f\n", act[0] + act[127]);
    free(act);
    free(params);
    return 0;
}
