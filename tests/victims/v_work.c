/* Calls the kernels of v_work_k.c with known sizes (tests/cyg_work.sh): mv_kernel 10 times at
 * 300 x 200 and 5 times at 64 x 1000; axpy_kernel 7 times with n = 5000; conv_kernel 3 times
 * with oc 4, oh 5, ow 6, stride 3, ic 3, kh 2, kw 7. */
#include <stdio.h>
#include <stdlib.h>

#include "v_work.h"

int main(void)
{
    float *a = calloc(300 * 1000, sizeof *a), *x = calloc(5000, sizeof *x),
          *y = calloc(5000, sizeof *y), *out = calloc(64, sizeof *out);
    if (!a || !x || !y || !out)
        return 1;
    for (int i = 0; i < 5000; i++)
        x[i] = (float)(i % 7);
    for (int i = 0; i < 300 * 1000; i++)
        a[i] = (float)(i % 5);
    for (int r = 0; r < 10; r++)
        mv_kernel(a, x, y, 300, 200);
    for (int r = 0; r < 5; r++)
        mv_kernel(a, x, y, 64, 1000);
    for (int r = 0; r < 7; r++)
        axpy_kernel(0.5f, x, y, 5000);
    long n = 0;
    for (int r = 0; r < 3; r++)
        n += conv_kernel(x, out, 4, 5, 6, 3, 3, 2, 7);
    printf("%ld %.1f\n", n, (double)y[17]);
    free(a);
    free(x);
    free(y);
    free(out);
    return 0;
}
