/* The kernels of v_work_k.c. */
#ifndef V_WORK_H
#define V_WORK_H
#include <stddef.h>
void mv_kernel(const float *a, const float *x, float *y, int rows, int cols);
void axpy_kernel(float alpha, const float *x, float *y, size_t n);
long conv_kernel(const float *in, float *out, int oc, int oh, int ow, long stride, int ic, int kh,
                 int kw);
#endif
