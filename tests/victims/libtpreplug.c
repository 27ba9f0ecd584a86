/* A plugin with a BLAS function of its own (tests/dl_reload.sh), built twice: TPREPLUG_VERSION 1
 * and 2 return different results. Its replug_run calls its own cblas_ddot through its PLT, which
 * binds to tprof's wrapper (the preloaded library comes first in every scope); the wrapper must
 * find the real function in this plugin, loaded RTLD_LOCAL, without keeping the plugin loaded:
 * the program unloads it, replaces the file and loads it again, and expects the constructor to
 * run again (it counts its runs in TPREPLUG_CTORS) and the new code to answer. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void replug_init(void)
{
    const char *v = getenv("TPREPLUG_CTORS");
    char buf[16];
    snprintf(buf, sizeof buf, "%d", (v ? atoi(v) : 0) + 1);
    setenv("TPREPLUG_CTORS", buf, 1);
}

double cblas_ddot(const int n, const double *x, const int incx, const double *y, const int incy)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i * incx] * y[i * incy];
    return s + 1000.0 * (TPREPLUG_VERSION - 1);
}

/* An op by name (the default TPROF_OPS match *conv*), called through this plugin's PLT: hooked
 * once the plugin is loaded, without tprof keeping the plugin loaded either. */
double replug_conv(const double *x, const double *y, int n)
{
    return cblas_ddot(n, x, 1, y, 1);
}

double replug_run(void)
{
    double x[8], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = i + 1;
        y[i] = 0.5 * i;
    }
    return replug_conv(x, y, 8);
}
