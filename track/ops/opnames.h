/* Ops by name: which function is an op (TPROF_OPS), which is the step (TPROF_STEP), the family of
 * an op from its name, and the work (FLOPs, bytes) of a call from its arguments: for the BLAS
 * wrappers (below) and, by work entries (common/workspec.h), for the program's own functions and
 * the exports whose work tprof knows. One set of rules for every
 * hook that names ops: the -finstrument-functions hooks, the PLT hooks and the BLAS wrappers. */
#ifndef TPROF_OPNAMES_H
#define TPROF_OPNAMES_H

#include <stdint.h>

#include "track/ops/ops.h"

/* The family of an op from its name: matmul, gemv, conv, attention, softmax, norm, pool,
 * activation, ... else "op". */
const char *tp_names_kind(const char *name);

/* TPROF_STEP names this function (plain, or demangled with or without its parameter list). */
int tp_names_is_step(const char *name);

/* TPROF_OPS selects this function (its globs, case-insensitive, "!glob" excluding). */
int tp_names_is_op(const char *name);

/* TPROF_OPS is not set: then every C export of the program's own libraries (not a system
 * library's) is an op, its name matching or not, but for the set-up the default list excludes
 * (make_*, load_*, ...): the function that takes the time may be named anything. Tiny ones are
 * demoted to counts after their first calls (track/ops/demote.h). */
int tp_names_default(void);
/* Under the default list: is this export an op? (Not excluded by it.) */
int tp_names_default_export(const char *name);

/* TPROF_OPS has name as an entry of its own, written out in full (no glob caught it): the user
 * vouches for that function. */
int tp_names_exact(const char *name);

/* The work of one call, from its arguments (docs/ops.md; "elem" is the element size, 8 and 16
 * for complex, whose multiply-add is 8 real FLOPs, not 2):
 *   gemm  m,n,k       2·m·n·k FLOPs (8· complex); elem·(m·k + k·n + m·n, + m·n when beta ≠ 0)
 *   gemv  m,n         2·m·n (8· complex);         elem·(m·n + len x + len y, + len y when beta ≠ 0)
 *   symm  m,n, A ka²  2·ka·m·n;                   elem·(ka(ka+1)/2 + 2·m·n, + m·n when beta ≠ 0)
 *   syrk  n,k         k·n·(n+1);                  elem·(n·k + n(n+1)/2, + n(n+1)/2 when beta ≠ 0)
 *   trmm, trsm m,n    ka·m·n;                     elem·(ka(ka+1)/2 + 2·m·n)
 *   dot   n           2·n;                        elem·2·n
 *   axpy  n           2·n;                        elem·3·n
 * where ka is m when A is on the left (side L) and n when it is on the right. */
struct tp_work {
    uint64_t flops, bytes;
};

/* C = alpha op(A) op(B) + beta C. */
struct tp_work tp_work_gemm(int64_t m, int64_t n, int64_t k, int beta_nz, unsigned elem, int cplx);
/* y = A x (x has n elements, y m) or A^T x (trans: x m, y n). */
struct tp_work tp_work_gemv(int64_t m, int64_t n, int trans, int beta_nz, unsigned elem, int cplx);
/* symm: A symmetric, m x m on the left, n x n on the right; one triangle read. */
struct tp_work tp_work_symm(int right, int64_t m, int64_t n, int beta_nz, unsigned elem);
/* syrk: C = alpha A A^T + beta C, C n x n of which one triangle is written, A n x k. */
struct tp_work tp_work_syrk(int64_t n, int64_t k, int beta_nz, unsigned elem);
/* trmm, trsm: A triangular (m x m left, n x n right), B m x n read and written. */
struct tp_work tp_work_tri(int right, int64_t m, int64_t n, unsigned elem);
/* dot (2 streams), axpy (3 streams) of n elements: 2·n FLOPs. */
struct tp_work tp_work_vec(int64_t n, unsigned elem, unsigned streams);

/* The work entry of a function by name: TPROF_WORK's, else a built-in one (darknet's gemm, its
 * inner loops and im2col_cpu, with their prototypes), else NULL. */
struct tp_work_fn;
const struct tp_work_fn *tp_names_work(const char *name);

#endif
