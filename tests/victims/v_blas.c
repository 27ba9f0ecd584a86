/* Every typed BLAS wrapper with known shapes; the expected figures are in tests/blas_ops.sh.
 * Prototypes are spelled out so the victim builds against any BLAS that provides them. */
#include <stdio.h>
#include <stdlib.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
void cblas_sgemv(int, int, int, int, float, const float *, int, const float *, int, float, float *,
                 int);
void cblas_dgemv(int, int, int, int, double, const double *, int, const double *, int, double,
                 double *, int);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *);
void sgemv_(const char *, const int *, const int *, const float *, const float *, const int *,
            const float *, const int *, const float *, float *, const int *);
void dgemv_(const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *);

enum { ROW = 101, COL = 102, N = 111, T = 112 };

static float fa[4096], fb[4096], fc[4096];
static double da[4096], db[4096], dc[4096];

int main(void)
{
    for (int i = 0; i < 4096; i++) {
        fa[i] = fb[i] = (float)(i % 7) / 7;
        da[i] = db[i] = (double)(i % 5) / 5;
    }
    for (int i = 0; i < 3; i++)
        cblas_sgemm(ROW, N, N, 64, 32, 16, 1, fa, 16, fb, 32, 0, fc, 32);
    cblas_sgemm(COL, T, N, 10, 20, 30, 1, fa, 30, fb, 30, 1, fc, 10);
    for (int i = 0; i < 2; i++)
        cblas_dgemm(ROW, N, T, 8, 8, 8, 1, da, 8, db, 8, 0.5, dc, 8);
    for (int i = 0; i < 4; i++)
        cblas_sgemv(ROW, N, 100, 50, 1, fa, 50, fb, 1, 0, fc, 1);
    cblas_dgemv(COL, T, 30, 40, 1, da, 30, db, 1, 1, dc, 1);

    int m = 5, n = 6, k = 7, ld = 7;
    float one = 1, zero = 0;
    for (int i = 0; i < 2; i++)
        sgemm_("N", "N", &m, &n, &k, &one, fa, &m, fb, &k, &zero, fc, &m);
    int m2 = 3, n2 = 4, k2 = 5;
    double d1 = 1, d2 = 2;
    dgemm_("T", "N", &m2, &n2, &k2, &d1, da, &k2, db, &k2, &d1, dc, &m2);
    int m3 = 9, n3 = 11, inc = 1;
    sgemv_("N", &m3, &n3, &one, fa, &m3, fb, &inc, &zero, fc, &inc);
    int m4 = 12, n4 = 13;
    dgemv_("T", &m4, &n4, &d1, da, &m4, db, &inc, &d2, dc, &inc);
    (void)ld;

    double sum = 0;
    for (int i = 0; i < 64; i++)
        sum += fc[i] + dc[i];
    printf("checksum %.3f\n", sum);
    return 0;
}
