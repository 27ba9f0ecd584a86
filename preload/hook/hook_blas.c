/* Typed BLAS wrappers, reached through the PLT like any interposed symbol.
 *
 * Each wrapper knows its signature, so FLOPs, bytes and the call shape come from the arguments
 * (the formulas are those of track/ops/opnames.c, written out in docs/ops.md).
 *
 * A BLAS call made inside another (reference CBLAS calls sgemm_ through its own PLT, with m and n
 * swapped for row-major) passes straight through: the outermost call is the op. So does every
 * call before tprof runs, from tprof itself, or when the op cannot be opened. errno is preserved:
 * tprof's own work around the real call never changes it.
 *
 * Not wrapped: Fortran sdot_ (whether a REAL function returns a float or a double depends on the
 * compiler convention the BLAS was built with; calling it with the wrong one corrupts the result)
 * and the complex dot products (their return conventions differ too); cblas_?gemm_batch, which
 * OpenBLAS 0.3.21 and the reference BLAS do not have. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/real.h"
#include "preload/shim.h"
#include "track/ops/ops.h"
#include "track/runtime.h"

/* CBLAS enum values (cblas.h), spelled out to need no BLAS headers. */
enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };
enum { UPPER = 121, LOWER = 122, LEFT = 141, RIGHT = 142 };

static char trans_char(int t)
{
    return t == TRANS ? 'T' : t == CONJ_TRANS ? 'C' : 'N';
}

static char uplo_char(int u)
{
    return u == LOWER ? 'L' : 'U';
}

static char side_char(int s)
{
    return s == RIGHT ? 'R' : 'L';
}

static char layout_char(int l)
{
    return l == ROW_MAJOR ? 'R' : 'C';
}

/* A Fortran character argument, upper-cased; what when absent or not one of ok. */
static char fchar(const char *p, const char *ok, char what)
{
    char c = p ? *p : what;
    if (c >= 'a' && c <= 'z')
        c = (char)(c - 'a' + 'A');
    for (; *ok; ok++)
        if (c == *ok)
            return c;
    return what;
}

static char ftrans(const char *t)
{
    return fchar(t, "NTC", 'N');
}

/* Should this call be recorded as an op? Not before init, not from tprof itself, not when a
 * BLAS op is already open on this thread. */
static inline int want(void)
{
    return tp_running() && !tp_guard && !tp_op_top_is(TP_SRC_BLAS);
}

/* Open the op; -1 when it was not opened (then the call is not recorded). */
static inline int begin(_Atomic int *id, const char *name, const char *kind)
{
    if (!want())
        return -1;
    int e = errno;
    int i = atomic_load_explicit(id, memory_order_relaxed);
    if (tp_unlikely(i == -1)) {
        /* -2: the op table was full; it never empties, so do not ask (and lock) again */
        i = tp_op_intern(name, kind, TP_SRC_BLAS);
        atomic_store_explicit(id, i >= 0 ? i : -2, memory_order_relaxed);
    }
    int pushed = i >= 0 && tp_op_begin(i, 0, 0);
    errno = e;
    return pushed ? i : -1;
}

static inline void end(int id, struct tp_work w, const struct tp_shape_key *k)
{
    int e = errno;
    tp_op_end(id, 0, 0, w.flops, w.bytes, k);
    errno = e;
}

/* Complex scalars are passed by address; beta is zero when both parts are. */
static int cbeta_nz_f(const void *b)
{
    const float *v = b;
    return v && (v[0] != 0 || v[1] != 0);
}

static int cbeta_nz_d(const void *b)
{
    const double *v = b;
    return v && (v[0] != 0 || v[1] != 0);
}

/* The head of every wrapper: its real function and op id, and the last resort when no loaded
 * object defines the function (then the call does nothing rather than jump to NULL). */
#define REAL(NAME, RET)                                                                            \
    static struct tp_real real = {#NAME};                                                          \
    static _Atomic int id = -1;                                                                    \
    NAME##_fn f = (NAME##_fn)tp_real_fn(&real);                                                    \
    if (tp_unlikely(!f)) {                                                                         \
        tp_real_missing(&real);                                                                    \
        return RET;                                                                                \
    }

/* ---- CBLAS ---- */

#define CBLAS_GEMM(NAME, T)                                                                        \
    typedef void (*NAME##_fn)(int, int, int, int, int, int, T, const T *, int, const T *, int, T,  \
                              T *, int);                                                           \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int ta, int tb, int m, int n, int k, T alpha,       \
                                   const T *a, int lda, const T *b, int ldb, T beta, T *c,         \
                                   int ldc)                                                        \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        f(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                           \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {                                                            \
                m, n, k, trans_char(ta), trans_char(tb), layout_char(layout)};                     \
            end(op, tp_work_gemm(m, n, k, beta != 0, sizeof(T), 0), &key);                         \
        }                                                                                          \
    }

#define CBLAS_CGEMM(NAME, T)                                                                       \
    typedef void (*NAME##_fn)(int, int, int, int, int, int, const void *, const void *, int,       \
                              const void *, int, const void *, void *, int);                       \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int ta, int tb, int m, int n, int k,                \
                                   const void *alpha, const void *a, int lda, const void *b,       \
                                   int ldb, const void *beta, void *c, int ldc)                    \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        int bnz = op >= 0 && cbeta_nz_##T(beta); /* read before C (and beta) may change */         \
        f(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                           \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {                                                            \
                m, n, k, trans_char(ta), trans_char(tb), layout_char(layout)};                     \
            end(op, tp_work_gemm(m, n, k, bnz, 2 * sizeof(T##_elem), 1), &key);                    \
        }                                                                                          \
    }

#define CBLAS_GEMV(NAME, T)                                                                        \
    typedef void (*NAME##_fn)(int, int, int, int, T, const T *, int, const T *, int, T, T *, int); \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int ta, int m, int n, T alpha, const T *a, int lda, \
                                   const T *x, int incx, T beta, T *y, int incy)                   \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "gemv");                                                        \
        f(layout, ta, m, n, alpha, a, lda, x, incx, beta, y, incy);                                \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {m, n, 0, trans_char(ta), 0, layout_char(layout)};           \
            end(op, tp_work_gemv(m, n, ta != NO_TRANS, beta != 0, sizeof(T), 0), &key);            \
        }                                                                                          \
    }

#define CBLAS_CGEMV(NAME, T)                                                                       \
    typedef void (*NAME##_fn)(int, int, int, int, const void *, const void *, int, const void *,   \
                              int, const void *, void *, int);                                     \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int ta, int m, int n, const void *alpha,            \
                                   const void *a, int lda, const void *x, int incx,                \
                                   const void *beta, void *y, int incy)                            \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "gemv");                                                        \
        int bnz = op >= 0 && cbeta_nz_##T(beta);                                                   \
        f(layout, ta, m, n, alpha, a, lda, x, incx, beta, y, incy);                                \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {m, n, 0, trans_char(ta), 0, layout_char(layout)};           \
            end(op, tp_work_gemv(m, n, ta != NO_TRANS, bnz, 2 * sizeof(T##_elem), 1), &key);       \
        }                                                                                          \
    }

#define CBLAS_SYMM(NAME, T)                                                                        \
    typedef void (*NAME##_fn)(int, int, int, int, int, T, const T *, int, const T *, int, T, T *,  \
                              int);                                                                \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int side, int uplo, int m, int n, T alpha,          \
                                   const T *a, int lda, const T *b, int ldb, T beta, T *c,         \
                                   int ldc)                                                        \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        f(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);                          \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {                                                            \
                m, n, 0, 0, 0, layout_char(layout), side_char(side), uplo_char(uplo)};             \
            end(op, tp_work_symm(side == RIGHT, m, n, beta != 0, sizeof(T)), &key);                \
        }                                                                                          \
    }

#define CBLAS_SYRK(NAME, T)                                                                        \
    typedef void (*NAME##_fn)(int, int, int, int, int, T, const T *, int, T, T *, int);            \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int uplo, int trans, int n, int k, T alpha,         \
                                   const T *a, int lda, T beta, T *c, int ldc)                     \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        f(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                                 \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {                                                            \
                n, n, k, trans_char(trans), 0, layout_char(layout), 0, uplo_char(uplo)};           \
            end(op, tp_work_syrk(n, k, beta != 0, sizeof(T)), &key);                               \
        }                                                                                          \
    }

/* trmm and trsm share their signature and their work. */
#define CBLAS_TRI(NAME, T)                                                                         \
    typedef void (*NAME##_fn)(int, int, int, int, int, int, int, T, const T *, int, T *, int);     \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int side, int uplo, int ta, int diag, int m, int n, \
                                   T alpha, const T *a, int lda, T *b, int ldb)                    \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        f(layout, side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);                              \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {m,                                                          \
                                       n,                                                          \
                                       0,                                                          \
                                       trans_char(ta),                                             \
                                       0,                                                          \
                                       layout_char(layout),                                        \
                                       side_char(side),                                            \
                                       uplo_char(uplo)};                                           \
            end(op, tp_work_tri(side == RIGHT, m, n, sizeof(T)), &key);                            \
        }                                                                                          \
    }

#define CBLAS_DOT(NAME, T)                                                                         \
    typedef T (*NAME##_fn)(int, const T *, int, const T *, int);                                   \
    TP_EXPORT TP_NOINSTR T NAME(int n, const T *x, int incx, const T *y, int incy)                 \
    {                                                                                              \
        REAL(NAME, 0)                                                                              \
        int op = begin(&id, #NAME, "dot");                                                         \
        T r = f(n, x, incx, y, incy);                                                              \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {0, n};                                                      \
            end(op, tp_work_vec(n, sizeof(T), 2), &key);                                           \
        }                                                                                          \
        return r;                                                                                  \
    }

#define CBLAS_AXPY(NAME, T)                                                                        \
    typedef void (*NAME##_fn)(int, T, const T *, int, T *, int);                                   \
    TP_EXPORT TP_NOINSTR void NAME(int n, T alpha, const T *x, int incx, T *y, int incy)           \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "axpy");                                                        \
        f(n, alpha, x, incx, y, incy);                                                             \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {0, n};                                                      \
            end(op, tp_work_vec(n, sizeof(T), 3), &key);                                           \
        }                                                                                          \
    }

typedef float f_elem;
typedef double d_elem;

CBLAS_GEMM(cblas_sgemm, float)
CBLAS_GEMM(cblas_dgemm, double)
CBLAS_CGEMM(cblas_cgemm, f)
CBLAS_CGEMM(cblas_zgemm, d)
CBLAS_GEMV(cblas_sgemv, float)
CBLAS_GEMV(cblas_dgemv, double)
CBLAS_CGEMV(cblas_cgemv, f)
CBLAS_CGEMV(cblas_zgemv, d)
CBLAS_SYMM(cblas_ssymm, float)
CBLAS_SYMM(cblas_dsymm, double)
CBLAS_SYRK(cblas_ssyrk, float)
CBLAS_SYRK(cblas_dsyrk, double)
CBLAS_TRI(cblas_strmm, float)
CBLAS_TRI(cblas_dtrmm, double)
CBLAS_TRI(cblas_strsm, float)
CBLAS_TRI(cblas_dtrsm, double)
CBLAS_DOT(cblas_sdot, float)
CBLAS_DOT(cblas_ddot, double)
CBLAS_AXPY(cblas_saxpy, float)
CBLAS_AXPY(cblas_daxpy, double)

/* ---- Fortran BLAS: every argument by reference, column-major; gfortran appends the lengths
 * of the character arguments, which are forwarded untouched. ---- */

#define F77_GEMM(NAME, T, CPLX)                                                                    \
    typedef void (*NAME##_fn)(const char *, const char *, const int *, const int *, const int *,   \
                              const void *, const void *, const int *, const void *, const int *,  \
                              const void *, void *, const int *, size_t, size_t);                  \
    TP_EXPORT TP_NOINSTR void NAME(const char *ta, const char *tb, const int *m, const int *n,     \
                                   const int *k, const void *alpha, const void *a, const int *lda, \
                                   const void *b, const int *ldb, const void *beta, void *c,       \
                                   const int *ldc, size_t la, size_t lb)                           \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        int bnz = 0;                                                                               \
        if (op >= 0) {                                                                             \
            const T *bv = beta;                                                                    \
            bnz = bv[0] != 0 || (CPLX && bv[CPLX] != 0);                                           \
        }                                                                                          \
        f(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);                           \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {*m, *n, *k, ftrans(ta), ftrans(tb), 'C'};                   \
            end(op, tp_work_gemm(*m, *n, *k, bnz, (CPLX + 1) * sizeof(T), CPLX), &key);            \
        }                                                                                          \
    }

#define F77_GEMV(NAME, T, CPLX)                                                                    \
    typedef void (*NAME##_fn)(const char *, const int *, const int *, const void *, const void *,  \
                              const int *, const void *, const int *, const void *, void *,        \
                              const int *, size_t);                                                \
    TP_EXPORT TP_NOINSTR void NAME(const char *ta, const int *m, const int *n, const void *alpha,  \
                                   const void *a, const int *lda, const void *x, const int *incx,  \
                                   const void *beta, void *y, const int *incy, size_t la)          \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "gemv");                                                        \
        int bnz = 0;                                                                               \
        if (op >= 0) {                                                                             \
            const T *bv = beta;                                                                    \
            bnz = bv[0] != 0 || (CPLX && bv[CPLX] != 0);                                           \
        }                                                                                          \
        f(ta, m, n, alpha, a, lda, x, incx, beta, y, incy, la);                                    \
        if (op >= 0) {                                                                             \
            char t = ftrans(ta);                                                                   \
            struct tp_shape_key key = {*m, *n, 0, t, 0, 'C'};                                      \
            end(op, tp_work_gemv(*m, *n, t != 'N', bnz, (CPLX + 1) * sizeof(T), CPLX), &key);      \
        }                                                                                          \
    }

#define F77_SYMM(NAME, T)                                                                          \
    typedef void (*NAME##_fn)(const char *, const char *, const int *, const int *, const T *,     \
                              const T *, const int *, const T *, const int *, const T *, T *,      \
                              const int *, size_t, size_t);                                        \
    TP_EXPORT TP_NOINSTR void NAME(const char *side, const char *uplo, const int *m, const int *n, \
                                   const T *alpha, const T *a, const int *lda, const T *b,         \
                                   const int *ldb, const T *beta, T *c, const int *ldc, size_t ls, \
                                   size_t lu)                                                      \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        int bnz = op >= 0 && *beta != 0;                                                           \
        f(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, ls, lu);                          \
        if (op >= 0) {                                                                             \
            char s = fchar(side, "LR", 'L');                                                       \
            struct tp_shape_key key = {*m, *n, 0, 0, 0, 'C', s, fchar(uplo, "UL", 'U')};           \
            end(op, tp_work_symm(s == 'R', *m, *n, bnz, sizeof(T)), &key);                         \
        }                                                                                          \
    }

#define F77_SYRK(NAME, T)                                                                          \
    typedef void (*NAME##_fn)(const char *, const char *, const int *, const int *, const T *,     \
                              const T *, const int *, const T *, T *, const int *, size_t,         \
                              size_t);                                                             \
    TP_EXPORT TP_NOINSTR void NAME(const char *uplo, const char *trans, const int *n,              \
                                   const int *k, const T *alpha, const T *a, const int *lda,       \
                                   const T *beta, T *c, const int *ldc, size_t lu, size_t lt)      \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        int bnz = op >= 0 && *beta != 0;                                                           \
        f(uplo, trans, n, k, alpha, a, lda, beta, c, ldc, lu, lt);                                 \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {*n, *n,  *k, ftrans(trans),                                 \
                                       0,  'C', 0,  fchar(uplo, "UL", 'U')};                       \
            end(op, tp_work_syrk(*n, *k, bnz, sizeof(T)), &key);                                   \
        }                                                                                          \
    }

#define F77_TRI(NAME, T)                                                                           \
    typedef void (*NAME##_fn)(const char *, const char *, const char *, const char *, const int *, \
                              const int *, const T *, const T *, const int *, T *, const int *,    \
                              size_t, size_t, size_t, size_t);                                     \
    TP_EXPORT TP_NOINSTR void NAME(const char *side, const char *uplo, const char *ta,             \
                                   const char *diag, const int *m, const int *n, const T *alpha,   \
                                   const T *a, const int *lda, T *b, const int *ldb, size_t ls,    \
                                   size_t lu, size_t lt, size_t ld)                                \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "matmul");                                                      \
        f(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, ls, lu, lt, ld);                      \
        if (op >= 0) {                                                                             \
            char s = fchar(side, "LR", 'L');                                                       \
            struct tp_shape_key key = {*m, *n, 0, ftrans(ta), 0, 'C', s, fchar(uplo, "UL", 'U')};  \
            end(op, tp_work_tri(s == 'R', *m, *n, sizeof(T)), &key);                               \
        }                                                                                          \
    }

#define F77_AXPY(NAME, T)                                                                          \
    typedef void (*NAME##_fn)(const int *, const T *, const T *, const int *, T *, const int *);   \
    TP_EXPORT TP_NOINSTR void NAME(const int *n, const T *alpha, const T *x, const int *incx,      \
                                   T *y, const int *incy)                                          \
    {                                                                                              \
        REAL(NAME, )                                                                               \
        int op = begin(&id, #NAME, "axpy");                                                        \
        f(n, alpha, x, incx, y, incy);                                                             \
        if (op >= 0) {                                                                             \
            struct tp_shape_key key = {0, *n};                                                     \
            end(op, tp_work_vec(*n, sizeof(T), 3), &key);                                          \
        }                                                                                          \
    }

F77_GEMM(sgemm_, float, 0)
F77_GEMM(dgemm_, double, 0)
F77_GEMM(cgemm_, float, 1)
F77_GEMM(zgemm_, double, 1)
F77_GEMV(sgemv_, float, 0)
F77_GEMV(dgemv_, double, 0)
F77_GEMV(cgemv_, float, 1)
F77_GEMV(zgemv_, double, 1)
F77_SYMM(ssymm_, float)
F77_SYMM(dsymm_, double)
F77_SYRK(ssyrk_, float)
F77_SYRK(dsyrk_, double)
F77_TRI(strmm_, float)
F77_TRI(dtrmm_, double)
F77_TRI(strsm_, float)
F77_TRI(dtrsm_, double)
F77_AXPY(saxpy_, float)
F77_AXPY(daxpy_, double)

/* ddot_ returns a DOUBLE PRECISION: the same register under every convention. */
typedef double (*ddot__fn)(const int *, const double *, const int *, const double *, const int *);
TP_EXPORT TP_NOINSTR double ddot_(const int *n, const double *x, const int *incx, const double *y,
                                  const int *incy)
{
    REAL(ddot_, 0)
    int op = begin(&id, "ddot_", "dot");
    double r = f(n, x, incx, y, incy);
    if (op >= 0) {
        struct tp_shape_key key = {0, *n};
        end(op, tp_work_vec(*n, sizeof(double), 2), &key);
    }
    return r;
}
