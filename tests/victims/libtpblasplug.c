/* A plugin linked against the BLAS, loaded by tests/victims/v_blas_plugin.c with
 * dlopen(RTLD_LOCAL): its BLAS is then outside the global scope, but its own PLT calls still bind
 * to tprof's wrappers, which must find the real functions in the plugin's local scope. */
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
double cblas_ddot(int, const double *, int, const double *, int);
void dgemv_(const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *);

static float a[16 * 4], b[4 * 8], c[16 * 8];
static double x[64], y[64];

double plug_run(int reps)
{
    for (int i = 0; i < 64; i++) {
        a[i] = (float)(i % 3);
        x[i] = y[i] = (double)(i % 4) / 4;
    }
    for (int i = 0; i < 32; i++)
        b[i] = (float)(i % 5);
    for (int r = 0; r < reps; r++)
        cblas_sgemm(101, 111, 111, 16, 8, 4, 1, a, 4, b, 8, 0, c, 8); /* row-major 16x8x4 */
    int m = 8, n = 8, inc = 1;
    double one = 1, zero = 0;
    dgemv_("N", &m, &n, &one, x, &m, x, &inc, &zero, y, &inc);
    double s = cblas_ddot(64, x, 1, y, 1);
    for (int i = 0; i < 16 * 8; i++)
        s += c[i];
    return s;
}
