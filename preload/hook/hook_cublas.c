/* cuBLAS's matrix products, interposed: cublasSgemm_v2, cublasDgemm_v2, cublasHgemm, cublasGemmEx,
 * their strided-batched forms and cublasGemmBatchedEx, each told to track/gpu/gpu.c with its
 * shape, transposes, batch and element type. cuBLAS is always a shared library (libcublas.so),
 * so its exported names are reached through the global scope, where these come first; each
 * forwards to cuBLAS's own function and returns its status untouched.
 *
 * A call returns once the product is queued on the device, so the host's time in it is its
 * launch, not the product: these are not ops (an op's time would be the launch's, and its GFLOP/s
 * wrong by orders of magnitude). The report lists them with their FLOPs; their time on the device
 * needs CUPTI's records. cublasLt's matmul takes its shapes from descriptors and is not wrapped.
 *
 * The enums are cuBLAS's and CUDA's ABI values (cublasOperation_t, cudaDataType), written out to
 * need no CUDA header. */
#include <stdint.h>

#include "common/clock.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "track/gpu/gpu.h"
#include "track/runtime.h"

typedef void *cublasHandle_t;
typedef int cublasStatus_t;

static char op_char(int op)
{
    return op == 1 ? 'T' : op == 2 ? 'C' : 'N';
}

/* cudaDataType's values for the real types a product takes. */
static const char *dtype(int t)
{
    switch (t) {
    case 0: return "f32";
    case 1: return "f64";
    case 2: return "f16";
    case 3: return "i8";
    case 14: return "bf16";
    case 28: return "f8e4m3";
    case 29: return "f8e5m2";
    default: return "other";
    }
}

/* The start of a call the program makes, 0 for one that is not recorded. */
static uint64_t start(void)
{
    tp_gpu_seen();
    return !tp_guard && atomic_load_explicit(&tp_state, memory_order_relaxed) == TP_RUNNING
               ? tp_now_ns()
               : 0;
}

static void note(cublasStatus_t rc, uint64_t t0, const char *fn, const char *type, int ta, int tb,
                 int m, int n, int k, int batch)
{
    if (rc != 0 || !t0 || m <= 0 || n <= 0 || k <= 0 || batch <= 0)
        return;
    struct tp_gpu_gemm_call g = {fn, type, op_char(ta), op_char(tb), m, n, k, batch};
    tp_gpu_gemm(&g, tp_now_ns() - t0);
}

/* The real function, and the status when none is loaded (CUBLAS_STATUS_NOT_INITIALIZED). */
#define REAL(NAME)                                                                                 \
    static struct tp_real real = {#NAME};                                                          \
    NAME##_fn f = (NAME##_fn)tp_real_fn(&real);                                                    \
    if (!f) {                                                                                      \
        tp_real_missing(&real);                                                                    \
        return 1;                                                                                  \
    }

typedef cublasStatus_t (*cublasSgemm_v2_fn)(cublasHandle_t, int, int, int, int, int, const float *,
                                            const float *, int, const float *, int, const float *,
                                            float *, int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasSgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n,
                                                   int k, const float *alpha, const float *a,
                                                   int lda, const float *b, int ldb,
                                                   const float *beta, float *c, int ldc)
{
    REAL(cublasSgemm_v2)
    uint64_t t0 = start();
    cublasStatus_t rc = f(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    note(rc, t0, "cublasSgemm_v2", "f32", ta, tb, m, n, k, 1);
    return rc;
}

typedef cublasStatus_t (*cublasDgemm_v2_fn)(cublasHandle_t, int, int, int, int, int, const double *,
                                            const double *, int, const double *, int,
                                            const double *, double *, int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasDgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n,
                                                   int k, const double *alpha, const double *a,
                                                   int lda, const double *b, int ldb,
                                                   const double *beta, double *c, int ldc)
{
    REAL(cublasDgemm_v2)
    uint64_t t0 = start();
    cublasStatus_t rc = f(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    note(rc, t0, "cublasDgemm_v2", "f64", ta, tb, m, n, k, 1);
    return rc;
}

/* __half is 16 bits passed by address: void pointers here. */
typedef cublasStatus_t (*cublasHgemm_fn)(cublasHandle_t, int, int, int, int, int, const void *,
                                         const void *, int, const void *, int, const void *, void *,
                                         int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasHgemm(cublasHandle_t h, int ta, int tb, int m, int n,
                                                int k, const void *alpha, const void *a, int lda,
                                                const void *b, int ldb, const void *beta, void *c,
                                                int ldc)
{
    REAL(cublasHgemm)
    uint64_t t0 = start();
    cublasStatus_t rc = f(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    note(rc, t0, "cublasHgemm", "f16", ta, tb, m, n, k, 1);
    return rc;
}

typedef cublasStatus_t (*cublasGemmEx_fn)(cublasHandle_t, int, int, int, int, int, const void *,
                                          const void *, int, int, const void *, int, int,
                                          const void *, void *, int, int, int, int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasGemmEx(cublasHandle_t h, int ta, int tb, int m, int n,
                                                 int k, const void *alpha, const void *a, int at,
                                                 int lda, const void *b, int bt, int ldb,
                                                 const void *beta, void *c, int ct, int ldc,
                                                 int compute, int algo)
{
    REAL(cublasGemmEx)
    uint64_t t0 = start();
    cublasStatus_t rc =
        f(h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute, algo);
    note(rc, t0, "cublasGemmEx", dtype(at), ta, tb, m, n, k, 1);
    return rc;
}

typedef cublasStatus_t (*cublasSgemmStridedBatched_fn)(cublasHandle_t, int, int, int, int, int,
                                                       const float *, const float *, int, long long,
                                                       const float *, int, long long, const float *,
                                                       float *, int, long long, int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *a,
    int lda, long long sa, const float *b, int ldb, long long sb, const float *beta, float *c,
    int ldc, long long sc, int batch)
{
    REAL(cublasSgemmStridedBatched)
    uint64_t t0 = start();
    cublasStatus_t rc =
        f(h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
    note(rc, t0, "cublasSgemmStridedBatched", "f32", ta, tb, m, n, k, batch);
    return rc;
}

typedef cublasStatus_t (*cublasDgemmStridedBatched_fn)(cublasHandle_t, int, int, int, int, int,
                                                       const double *, const double *, int,
                                                       long long, const double *, int, long long,
                                                       const double *, double *, int, long long,
                                                       int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasDgemmStridedBatched(
    cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *a,
    int lda, long long sa, const double *b, int ldb, long long sb, const double *beta, double *c,
    int ldc, long long sc, int batch)
{
    REAL(cublasDgemmStridedBatched)
    uint64_t t0 = start();
    cublasStatus_t rc =
        f(h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
    note(rc, t0, "cublasDgemmStridedBatched", "f64", ta, tb, m, n, k, batch);
    return rc;
}

typedef cublasStatus_t (*cublasGemmStridedBatchedEx_fn)(cublasHandle_t, int, int, int, int, int,
                                                        const void *, const void *, int, int,
                                                        long long, const void *, int, int,
                                                        long long, const void *, void *, int, int,
                                                        long long, int, int, int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at,
    int lda, long long sa, const void *b, int bt, int ldb, long long sb, const void *beta, void *c,
    int ct, int ldc, long long sc, int batch, int compute, int algo)
{
    REAL(cublasGemmStridedBatchedEx)
    uint64_t t0 = start();
    cublasStatus_t rc = f(h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct,
                          ldc, sc, batch, compute, algo);
    note(rc, t0, "cublasGemmStridedBatchedEx", dtype(at), ta, tb, m, n, k, batch);
    return rc;
}

typedef cublasStatus_t (*cublasGemmBatchedEx_fn)(cublasHandle_t, int, int, int, int, int,
                                                 const void *, const void *const *, int, int,
                                                 const void *const *, int, int, const void *,
                                                 void *const *, int, int, int, int, int);
TP_EXPORT TP_NOINSTR cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, int ta, int tb, int m,
                                                        int n, int k, const void *alpha,
                                                        const void *const *a, int at, int lda,
                                                        const void *const *b, int bt, int ldb,
                                                        const void *beta, void *const *c, int ct,
                                                        int ldc, int batch, int compute, int algo)
{
    REAL(cublasGemmBatchedEx)
    uint64_t t0 = start();
    cublasStatus_t rc = f(h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc,
                          batch, compute, algo);
    note(rc, t0, "cublasGemmBatchedEx", dtype(at), ta, tb, m, n, k, batch);
    return rc;
}
