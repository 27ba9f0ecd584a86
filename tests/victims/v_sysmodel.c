/* tests/plt_sysmodel.sh: a program whose model is a library installed with the system's
 * (libtpmodel.c): 7 forward passes, 5 updates; and one call of libtpvec.cc's vec_fill. */
#include <stdio.h>

#include <stddef.h>

double model_forward(const double *w, const double *x, size_t n);
float vec_fill(int n); /* libtpvec.cc */
void model_update(double *w, const double *g, size_t n, double lr);

int main(void)
{
    double w[64], x[64], s = 0;
    for (int i = 0; i < 64; i++)
        w[i] = x[i] = 1.0;
    for (int i = 0; i < 7; i++)
        s += model_forward(w, x, 64);
    for (int i = 0; i < 5; i++)
        model_update(w, x, 64, 0.125);
    printf("%.3f %.6f %.0f\n", s, w[0], vec_fill(100));
    return 0;
}
