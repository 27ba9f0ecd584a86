/* A stand-in for cuBLAS (built as libtpfakecublas.so with the soname libcublas.so.12, found as
 * libcublas.so.12 through LD_LIBRARY_PATH): the matrix products tprof interposes, which here do
 * nothing but succeed, so that their shapes, types and FLOPs can be tested without a GPU. A
 * product with m, n or k negative fails (CUBLAS_STATUS_INVALID_VALUE), as cuBLAS's does. */
typedef int cublasStatus_t;

static cublasStatus_t check(int m, int n, int k)
{
    return m < 0 || n < 0 || k < 0 ? 7 : 0;
}

cublasStatus_t cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *al,
                              const float *a, int lda, const float *b, int ldb, const float *be,
                              float *c, int ldc)
{
    (void)h, (void)ta, (void)tb, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be;
    (void)c, (void)ldc;
    return check(m, n, k);
}

cublasStatus_t cublasDgemm_v2(void *h, int ta, int tb, int m, int n, int k, const double *al,
                              const double *a, int lda, const double *b, int ldb,
                              const double *be, double *c, int ldc)
{
    (void)h, (void)ta, (void)tb, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be;
    (void)c, (void)ldc;
    return check(m, n, k);
}

cublasStatus_t cublasHgemm(void *h, int ta, int tb, int m, int n, int k, const void *al,
                           const void *a, int lda, const void *b, int ldb, const void *be, void *c,
                           int ldc)
{
    (void)h, (void)ta, (void)tb, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be;
    (void)c, (void)ldc;
    return check(m, n, k);
}

cublasStatus_t cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *al,
                            const void *a, int at, int lda, const void *b, int bt, int ldb,
                            const void *be, void *c, int ct, int ldc, int compute, int algo)
{
    (void)h, (void)ta, (void)tb, (void)al, (void)a, (void)at, (void)lda, (void)b, (void)bt;
    (void)ldb, (void)be, (void)c, (void)ct, (void)ldc, (void)compute, (void)algo;
    return check(m, n, k);
}

cublasStatus_t cublasSgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k,
                                         const float *al, const float *a, int lda, long long sa,
                                         const float *b, int ldb, long long sb, const float *be,
                                         float *c, int ldc, long long sc, int batch)
{
    (void)h, (void)ta, (void)tb, (void)al, (void)a, (void)lda, (void)sa, (void)b, (void)ldb;
    (void)sb, (void)be, (void)c, (void)ldc, (void)sc, (void)batch;
    return check(m, n, k);
}
