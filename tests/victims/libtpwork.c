/* An exported kernel with nine arguments (tests/plt_work.sh): a float in xmm0, integer sizes in
 * registers (int n, size_t m) and two past the sixth integer argument, on the stack (a5, a6). */
#include <stddef.h>

long tpw_scale(float alpha, const float *x, float *y, int n, size_t m, int a3, int a4, int a5,
               int a6)
{
    long k = 0;
    for (size_t i = 0; i < (size_t)n * m; i++, k++)
        y[i % 16] += alpha * x[i % 16] + (float)(a3 + a4 + a5 + a6);
    return k;
}
