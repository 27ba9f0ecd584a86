/* Kernels whose work TPROF_WORK gives from their parameters (tests/cyg_work.sh): sizes as int
 * and size_t, in registers and, past the sixth integer argument, on the stack. Built at -O0,
 * -O2 and -O3 in a file of their own, so that main cannot inline them. */
#include <stddef.h>

#include "v_work.h"

/* y = A x, A rows x cols: a GEMV, 2 FLOPs and about 4 bytes per element of A. */
void mv_kernel(const float *a, const float *x, float *y, int rows, int cols)
{
    for (int i = 0; i < rows; i++) {
        float s = 0;
        for (int j = 0; j < cols; j++)
            s += a[(size_t)i * (size_t)cols + (size_t)j] * x[j];
        y[i] = s;
    }
}

/* y += alpha x over n elements, n a size_t. */
void axpy_kernel(float alpha, const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] += alpha * x[i];
}

/* A convolution-shaped loop with nine integer arguments: ic, kh and kw come on the stack. */
long conv_kernel(const float *in, float *out, int oc, int oh, int ow, long stride, int ic, int kh,
                 int kw)
{
    long n = 0;
    for (int o = 0; o < oc * oh * ow; o++) {
        float s = 0;
        for (int k = 0; k < ic * kh * kw; k++)
            s += in[((size_t)o * (size_t)stride + (size_t)k) % 64];
        out[o % 64] = s;
        n++;
    }
    return n;
}
