/* Where the time outside every op goes, built each way a row of the advice table needs
 * (report/analyze/advice.c; expected sentences in tests/advice.sh). Each mode runs until the process has
 * used 300 ms of CPU time: a fixed amount of CPU time whatever the machine's speed.
 *   inline  a matmul the compiler inlines into main (built -O2 -g: v_adv_o2)
 *   static  a static function in a binary built without -finstrument-functions (v_adv_static;
 *           stripped by the test for the "no symbol" row)
 *   lib     an export of a shared library (libtpadv.so) that TPROF_OPS does not name
 *   yield   a thread waiting in a sched_yield loop, as an idle pool's thread does */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define N 64

static double a[N * N], b[N * N], c[N * N];

void adv_work(double *out, const double *x, int n); /* libtpadv.so (v_adv_lib only) */

static int spent(void)
{
    return clock() >= CLOCKS_PER_SEC * 3 / 10;
}

static inline void matmul(double *out, const double *x, const double *y)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += x[i * N + k] * y[k * N + j];
            out[i * N + j] = s;
        }
}

/* noclone: its name stays crunch_local, not a clone's crunch_local.constprop.0 */
__attribute__((noinline, noclone)) static void crunch_local(double *out, const double *x)
{
    for (int i = 0; i < N * N; i++)
        out[i] = out[i] * 0.5 + x[(i * 7) % (N * N)];
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "static";
    for (int i = 0; i < N * N; i++) {
        a[i] = i % 7;
        b[i] = i % 5;
    }
    for (long it = 0; it % 256 || !spent(); it++) { /* clock() seldom: its time is no row's */
        if (!strcmp(mode, "inline"))
            matmul(c, a, b);
        else if (!strcmp(mode, "yield"))
            sched_yield();
#ifdef WITH_LIB
        else if (!strcmp(mode, "lib"))
            adv_work(c, a, N * N);
#endif
        else
            crunch_local(c, a);
    }
    printf("done %g\n", c[1] > 0 ? 1.0 : 0.0);
    return 0;
}
