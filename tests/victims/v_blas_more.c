/* The BLAS wrappers beyond s/d gemm and gemv: complex gemm and gemv, symm, syrk, trmm, trsm, dot
 * and axpy, through CBLAS and Fortran, row and column major, every side, triangle and transpose,
 * beta zero and not (for complex: a beta whose real part is zero). The expected figures are in
 * tests/blas_more.sh. Prototypes are spelled out so the victim builds against any BLAS. */
#include <stdio.h>

enum { ROW = 101, COL = 102, N = 111, T = 112, C = 113 };
enum { UP = 121, LO = 122, NONUNIT = 131, UNIT = 132, LEFT = 141, RIGHT = 142 };

void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_cgemv(int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zgemv(int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_ssymm(int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);
void cblas_dsymm(int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
void cblas_ssyrk(int, int, int, int, int, float, const float *, int, float, float *, int);
void cblas_dsyrk(int, int, int, int, int, double, const double *, int, double, double *, int);
void cblas_strmm(int, int, int, int, int, int, int, float, const float *, int, float *, int);
void cblas_dtrmm(int, int, int, int, int, int, int, double, const double *, int, double *, int);
void cblas_strsm(int, int, int, int, int, int, int, float, const float *, int, float *, int);
void cblas_dtrsm(int, int, int, int, int, int, int, double, const double *, int, double *, int);
float cblas_sdot(int, const float *, int, const float *, int);
double cblas_ddot(int, const double *, int, const double *, int);
void cblas_saxpy(int, float, const float *, int, float *, int);
void cblas_daxpy(int, double, const double *, int, double *, int);

typedef const char *S;
typedef const int *I;
void cgemm_(S, S, I, I, I, const void *, const void *, I, const void *, I, const void *, void *, I);
void zgemm_(S, S, I, I, I, const void *, const void *, I, const void *, I, const void *, void *, I);
void cgemv_(S, I, I, const void *, const void *, I, const void *, I, const void *, void *, I);
void zgemv_(S, I, I, const void *, const void *, I, const void *, I, const void *, void *, I);
void ssymm_(S, S, I, I, const float *, const float *, I, const float *, I, const float *, float *,
            I);
void dsymm_(S, S, I, I, const double *, const double *, I, const double *, I, const double *,
            double *, I);
void ssyrk_(S, S, I, I, const float *, const float *, I, const float *, float *, I);
void dsyrk_(S, S, I, I, const double *, const double *, I, const double *, double *, I);
void strmm_(S, S, S, S, I, I, const float *, const float *, I, float *, I);
void dtrmm_(S, S, S, S, I, I, const double *, const double *, I, double *, I);
void strsm_(S, S, S, S, I, I, const float *, const float *, I, float *, I);
void dtrsm_(S, S, S, S, I, I, const double *, const double *, I, double *, I);
void saxpy_(I, const float *, const float *, I, float *, I);
void daxpy_(I, const double *, const double *, I, double *, I);
double ddot_(I, const double *, I, const double *, I);

/* Operands: triangular ones get a dominant diagonal so the solves stay well conditioned. */
static float fa[4096], fb[4096], fc[4096];
static double da[4096], db[4096], dc[4096];
static float ca[2 * 512], cb[2 * 512], cc[2 * 512];
static double za[2 * 512], zb[2 * 512], zc[2 * 512];

static void fill(void)
{
    for (int i = 0; i < 4096; i++) {
        fa[i] = (float)(i % 7) / 70;
        fb[i] = (float)(i % 5) / 5;
        fc[i] = 0;
        da[i] = (double)(i % 3) / 30;
        db[i] = (double)(i % 11) / 11;
        dc[i] = 0;
    }
    for (int i = 0; i < 1024; i++) {
        ca[i] = cb[i] = (float)(i % 4) / 4;
        za[i] = zb[i] = (double)(i % 6) / 6;
        cc[i] = 0;
        zc[i] = 0;
    }
    for (int i = 0; i < 8; i++) { /* diagonals of the 8x8 leading blocks, any leading dim */
        for (int ld = 2; ld <= 8; ld++) {
            fa[i * ld + i] = 2;
            da[i * ld + i] = 2;
        }
    }
}

int main(void)
{
    fill();
    const float c1[2] = {1, 0}, c0[2] = {0, 0}, cbi[2] = {0, 1};
    const double z1[2] = {1, 0}, z0[2] = {0, 0}, zbi[2] = {0, 2};

    /* CBLAS */
    cblas_cgemm(COL, N, C, 4, 5, 6, c1, ca, 4, cb, 5, c0, cc, 4);
    cblas_cgemm(COL, N, C, 4, 5, 6, c1, ca, 4, cb, 5, cbi, cc, 4);
    cblas_zgemm(ROW, T, N, 3, 3, 3, z1, za, 3, zb, 3, z0, zc, 3);
    cblas_cgemv(ROW, N, 7, 9, c1, ca, 9, cb, 1, c1, cc, 1);
    cblas_zgemv(COL, T, 6, 4, z1, za, 6, zb, 1, z0, zc, 1);
    cblas_ssymm(ROW, LEFT, UP, 10, 20, 1, fa, 10, fb, 20, 0, fc, 20);
    cblas_dsymm(COL, RIGHT, LO, 6, 5, 1, da, 5, db, 6, 1, dc, 6);
    cblas_ssyrk(ROW, UP, N, 8, 4, 1, fa, 4, 0, fc, 8);
    cblas_dsyrk(COL, LO, T, 5, 7, 1, da, 7, 0.5, dc, 5);
    cblas_strmm(ROW, LEFT, LO, N, NONUNIT, 6, 4, 1, fa, 6, fb, 4);
    cblas_dtrmm(COL, RIGHT, UP, T, UNIT, 3, 5, 1, da, 5, db, 3);
    cblas_strsm(COL, LEFT, UP, N, NONUNIT, 4, 3, 1, fa, 4, fb, 4);
    for (int i = 0; i < 2; i++)
        cblas_dtrsm(ROW, RIGHT, LO, T, NONUNIT, 5, 2, 1, da, 2, db, 2);
    float sd = 0;
    for (int i = 0; i < 3; i++)
        sd += cblas_sdot(1000, fa, 1, fb, 1);
    double dd = cblas_ddot(10, da, 2, db, 1);
    cblas_saxpy(500, 0.5f, fa, 1, fc, 1);
    cblas_daxpy(7, 0.25, da, 1, dc, 1);

    /* Fortran */
    int m, n, k, lda, ldb, ldc, inc = 1;
    float f1 = 1, f0 = 0;
    double d1 = 1;
    m = 2, n = 3, k = 4, lda = 2, ldb = 3, ldc = 2;
    cgemm_("N", "T", &m, &n, &k, c1, ca, &lda, cb, &ldb, c0, cc, &ldc);
    m = 3, n = 2, k = 2, lda = 2, ldb = 2, ldc = 3;
    zgemm_("C", "N", &m, &n, &k, z1, za, &lda, zb, &ldb, z1, zc, &ldc);
    m = 5, n = 3, lda = 5;
    cgemv_("T", &m, &n, c1, ca, &lda, cb, &inc, c0, cc, &inc);
    m = 2, n = 2, lda = 2;
    zgemv_("N", &m, &n, z1, za, &lda, zb, &inc, zbi, zc, &inc);
    m = 3, n = 4, lda = 4, ldb = 3, ldc = 3;
    ssymm_("R", "U", &m, &n, &f1, fa, &lda, fb, &ldb, &f0, fc, &ldc);
    m = 4, n = 2, lda = 4, ldb = 4, ldc = 4;
    dsymm_("l", "l", &m, &n, &d1, da, &lda, db, &ldb, &d1, dc, &ldc);
    n = 3, k = 5, lda = 5, ldc = 3;
    ssyrk_("U", "T", &n, &k, &f1, fa, &lda, &f0, fc, &ldc);
    n = 4, k = 2, lda = 4, ldc = 4;
    dsyrk_("L", "N", &n, &k, &d1, da, &lda, &d1, dc, &ldc);
    m = 3, n = 2, lda = 3, ldb = 3;
    strmm_("L", "U", "T", "N", &m, &n, &f1, fa, &lda, fb, &ldb);
    m = 2, n = 3, lda = 3, ldb = 2;
    dtrmm_("R", "L", "N", "U", &m, &n, &d1, da, &lda, db, &ldb);
    m = 4, n = 3, lda = 3, ldb = 4;
    strsm_("R", "U", "N", "N", &m, &n, &f1, fa, &lda, fb, &ldb);
    m = 3, n = 3, lda = 3, ldb = 3;
    dtrsm_("L", "L", "T", "N", &m, &n, &d1, da, &lda, db, &ldb);
    n = 100;
    saxpy_(&n, &f1, fa, &inc, fc, &inc);
    n = 9;
    daxpy_(&n, &d1, da, &inc, dc, &inc);
    n = 50;
    dd += ddot_(&n, da, &inc, db, &inc);

    double sum = sd + dd;
    for (int i = 0; i < 256; i++)
        sum += fb[i] + fc[i] + db[i] + dc[i] + cc[i] + zc[i];
    printf("checksum %.4f\n", sum);
    return 0;
}
