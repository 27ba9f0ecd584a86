/* Typed BLAS wrappers (DESIGN §3-§4): cblas_?gemm, cblas_?gemv, ?gemm_, ?gemv_ for s and d.
 *
 * Reached through the PLT like any interposed symbol. Each wrapper knows its signature, so FLOPs,
 * bytes and the call shape come from the arguments:
 *   gemm: 2*m*n*k FLOPs; bytes = elem * (m*k + k*n + m*n, + m*n again when beta != 0)
 *   gemv: 2*m*n FLOPs;   bytes = elem * (m*n + len(x) + len(y), + len(y) again when beta != 0)
 * A BLAS call made inside another (reference CBLAS calls sgemm_ through its own PLT, with m and n
 * swapped for row-major) passes straight through: the outermost call is the op. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "ops.h"
#include "resolve.h"

/* CBLAS enum values (cblas.h), spelled out to need no BLAS headers. */
enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };

static char trans_char(int t)
{
    return t == TRANS ? 'T' : t == CONJ_TRANS ? 'C' : 'N';
}

static char fortran_trans(const char *t)
{
    char c = t ? *t : 'N';
    if (c == 'n')
        return 'N';
    if (c == 't')
        return 'T';
    if (c == 'c')
        return 'C';
    return c == 'T' || c == 'C' ? c : 'N';
}

static uint64_t nn(long v)
{
    return v > 0 ? (uint64_t)v : 0;
}

static void gemm_work(long m, long n, long k, int beta_nonzero, unsigned elem, uint64_t *fl,
                      uint64_t *by)
{
    uint64_t M = nn(m), N = nn(n), K = nn(k);
    *fl = 2 * M * N * K;
    *by = elem * (M * K + K * N + M * N + (beta_nonzero ? M * N : 0));
}

/* gemv y = A x (no trans: x has n elements, y m) or A^T x (x m, y n). */
static void gemv_work(long m, long n, int trans, int beta_nonzero, unsigned elem, uint64_t *fl,
                      uint64_t *by)
{
    uint64_t M = nn(m), N = nn(n);
    uint64_t lx = trans ? M : N, ly = trans ? N : M;
    *fl = 2 * M * N;
    *by = elem * (M * N + lx + ly + (beta_nonzero ? ly : 0));
}

/* The real function, found once (and looked for again while it is missing). */
static void *real_of(_Atomic(void *) *cache, const char *name)
{
    void *f = atomic_load_explicit(cache, memory_order_acquire);
    if (tp_likely(f != NULL))
        return f;
    f = tp_resolve_next(name);
    if (f)
        atomic_store_explicit(cache, f, memory_order_release);
    return f;
}

static void missing(_Atomic int *warned, const char *name)
{
    int w = 0;
    if (atomic_compare_exchange_strong(warned, &w, 1))
        tp_warn("%s: the real function was not found in any loaded library; the call did nothing",
                name);
}

/* Should this call be recorded as an op? Not before init, not from tprof itself, not when a
 * BLAS op is already open on this thread. */
static inline int want(void)
{
    return tp_running() && !tp_guard && !tp_op_top_is(TP_SRC_BLAS);
}

static inline int begin(_Atomic int *id, const char *name, const char *kind)
{
    int i = atomic_load_explicit(id, memory_order_relaxed);
    if (tp_unlikely(i < 0)) {
        i = tp_op_intern(name, kind, TP_SRC_BLAS);
        atomic_store_explicit(id, i, memory_order_relaxed);
    }
    int e = errno;
    int pushed = tp_op_begin(i, 0, 0);
    errno = e;
    return pushed ? i : -1;
}

static inline void end(int id, uint64_t fl, uint64_t by, const struct tp_shape_key *k)
{
    int e = errno;
    tp_op_end(id, 0, 0, fl, by, k);
    errno = e;
}

/* ---- CBLAS ---- */

#define CBLAS_GEMM(NAME, T)                                                                   \
    typedef void (*NAME##_fn)(int, int, int, int, int, int, T, const T *, int, const T *, int,  \
                              T, T *, int);                                                   \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int ta, int tb, int m, int n, int k, T alpha,    \
                                   const T *a, int lda, const T *b, int ldb, T beta, T *c,      \
                                   int ldc)                                                     \
    {                                                                                           \
        static _Atomic(void *) real;                                                            \
        static _Atomic int id = -1, warned;                                                     \
        NAME##_fn f = (NAME##_fn)real_of(&real, #NAME);                                         \
        if (!f) {                                                                               \
            missing(&warned, #NAME);                                                            \
            return;                                                                             \
        }                                                                                       \
        int op = want() ? begin(&id, #NAME, "matmul") : -1;                                     \
        f(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                        \
        if (op >= 0) {                                                                          \
            uint64_t fl, by;                                                                    \
            gemm_work(m, n, k, beta != 0, sizeof(T), &fl, &by);                                 \
            struct tp_shape_key key = {m, n, k, trans_char(ta), trans_char(tb),                 \
                                       layout == ROW_MAJOR ? 'R' : 'C'};                        \
            end(op, fl, by, &key);                                                              \
        }                                                                                       \
    }

#define CBLAS_GEMV(NAME, T)                                                                   \
    typedef void (*NAME##_fn)(int, int, int, int, T, const T *, int, const T *, int, T, T *,   \
                              int);                                                           \
    TP_EXPORT TP_NOINSTR void NAME(int layout, int ta, int m, int n, T alpha, const T *a,       \
                                   int lda, const T *x, int incx, T beta, T *y, int incy)       \
    {                                                                                           \
        static _Atomic(void *) real;                                                            \
        static _Atomic int id = -1, warned;                                                     \
        NAME##_fn f = (NAME##_fn)real_of(&real, #NAME);                                         \
        if (!f) {                                                                               \
            missing(&warned, #NAME);                                                            \
            return;                                                                             \
        }                                                                                       \
        int op = want() ? begin(&id, #NAME, "gemv") : -1;                                       \
        f(layout, ta, m, n, alpha, a, lda, x, incx, beta, y, incy);                             \
        if (op >= 0) {                                                                          \
            uint64_t fl, by;                                                                    \
            gemv_work(m, n, ta != NO_TRANS, beta != 0, sizeof(T), &fl, &by);                    \
            struct tp_shape_key key = {m, n, 0, trans_char(ta), 0,                              \
                                       layout == ROW_MAJOR ? 'R' : 'C'};                        \
            end(op, fl, by, &key);                                                              \
        }                                                                                       \
    }

CBLAS_GEMM(cblas_sgemm, float)
CBLAS_GEMM(cblas_dgemm, double)
CBLAS_GEMV(cblas_sgemv, float)
CBLAS_GEMV(cblas_dgemv, double)

/* ---- Fortran BLAS: every argument by reference, column-major; gfortran appends the lengths
 * of the character arguments, which are forwarded untouched. ---- */

#define F77_GEMM(NAME, T)                                                                     \
    typedef void (*NAME##_fn)(const char *, const char *, const int *, const int *,           \
                              const int *, const T *, const T *, const int *, const T *,      \
                              const int *, const T *, T *, const int *, size_t, size_t);      \
    TP_EXPORT TP_NOINSTR void NAME(const char *ta, const char *tb, const int *m, const int *n,  \
                                   const int *k, const T *alpha, const T *a, const int *lda,    \
                                   const T *b, const int *ldb, const T *beta, T *c,             \
                                   const int *ldc, size_t la, size_t lb)                        \
    {                                                                                           \
        static _Atomic(void *) real;                                                            \
        static _Atomic int id = -1, warned;                                                     \
        NAME##_fn f = (NAME##_fn)real_of(&real, #NAME);                                         \
        if (!f) {                                                                               \
            missing(&warned, #NAME);                                                            \
            return;                                                                             \
        }                                                                                       \
        int op = want() ? begin(&id, #NAME, "matmul") : -1;                                     \
        f(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);                        \
        if (op >= 0) {                                                                          \
            uint64_t fl, by;                                                                    \
            gemm_work(*m, *n, *k, *beta != 0, sizeof(T), &fl, &by);                             \
            struct tp_shape_key key = {*m, *n, *k, fortran_trans(ta), fortran_trans(tb), 'C'};  \
            end(op, fl, by, &key);                                                              \
        }                                                                                       \
    }

#define F77_GEMV(NAME, T)                                                                     \
    typedef void (*NAME##_fn)(const char *, const int *, const int *, const T *, const T *,   \
                              const int *, const T *, const int *, const T *, T *,            \
                              const int *, size_t);                                           \
    TP_EXPORT TP_NOINSTR void NAME(const char *ta, const int *m, const int *n, const T *alpha,  \
                                   const T *a, const int *lda, const T *x, const int *incx,     \
                                   const T *beta, T *y, const int *incy, size_t la)             \
    {                                                                                           \
        static _Atomic(void *) real;                                                            \
        static _Atomic int id = -1, warned;                                                     \
        NAME##_fn f = (NAME##_fn)real_of(&real, #NAME);                                         \
        if (!f) {                                                                               \
            missing(&warned, #NAME);                                                            \
            return;                                                                             \
        }                                                                                       \
        int op = want() ? begin(&id, #NAME, "gemv") : -1;                                       \
        f(ta, m, n, alpha, a, lda, x, incx, beta, y, incy, la);                                 \
        if (op >= 0) {                                                                          \
            uint64_t fl, by;                                                                    \
            char t = fortran_trans(ta);                                                         \
            gemv_work(*m, *n, t != 'N', *beta != 0, sizeof(T), &fl, &by);                       \
            struct tp_shape_key key = {*m, *n, 0, t, 0, 'C'};                                   \
            end(op, fl, by, &key);                                                              \
        }                                                                                       \
    }

F77_GEMM(sgemm_, float)
F77_GEMM(dgemm_, double)
F77_GEMV(sgemv_, float)
F77_GEMV(dgemv_, double)
