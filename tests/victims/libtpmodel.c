/* A model library as a distribution would install it (tests/plt_sysmodel.sh copies it under
 * <root>/usr/lib/x86_64-linux-gnu): model_forward and model_update, which the program calls,
 * model_dot, which they call through the library's own PLT, and, built with -DTPMHELP,
 * libtpmhelp.so's mhelp_scale, a helper library of the system's that model_update calls. */
#include <stddef.h>

#if defined(TPMHELP)
void mhelp_scale(double *x, size_t n, double a)
{
    for (size_t i = 0; i < n; i++)
        x[i] *= a;
}
#else
void mhelp_scale(double *x, size_t n, double a);

double model_dot(const double *x, const double *y, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

double model_forward(const double *w, const double *x, size_t n)
{
    return model_dot(w, x, n);
}

void model_update(double *w, const double *g, size_t n, double lr)
{
    for (size_t i = 0; i < n; i++)
        w[i] -= lr * g[i];
    mhelp_scale(w, n, 0.5);
}
#endif
