/* Calls libtpwork.so's tpw_scale through the PLT (tests/plt_work.sh): 4 times with n 100, m 7,
 * a5 3, a6 5, alpha 0.5; twice with n 20, m 3, a5 2, a6 -1, alpha 0. */
#include <stddef.h>
#include <stdio.h>

long tpw_scale(float alpha, const float *x, float *y, int n, size_t m, int a3, int a4, int a5,
               int a6);

int main(void)
{
    float x[16] = {1, 2, 3}, y[16] = {0};
    long k = 0;
    for (int i = 0; i < 4; i++)
        k += tpw_scale(0.5f, x, y, 100, 7, 1, 2, 3, 5);
    for (int i = 0; i < 2; i++)
        k += tpw_scale(0.0f, x, y, 20, 3, 1, 2, 2, -1);
    printf("%ld %.1f\n", k, (double)y[1]);
    return 0;
}
