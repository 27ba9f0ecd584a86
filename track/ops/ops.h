/* The op registry and the per-thread op stack (implemented in track/ops/ops.c; the report made of
 * them is ops_collect.h's).
 *
 * Every way tprof sees an op (typed BLAS wrappers, -finstrument-functions hooks, PLT/GOT hooks
 * on shared-library exports, the annotation API) ends in tp_op_begin()/tp_op_end(). ops.c owns
 * the statistics: calls, total/self time, latency histogram with warm-up calls apart, FLOPs,
 * bytes, shapes, bytes allocated while the op ran; and the steps (TPROF_STEP / tprof_step()).
 *
 * All functions are safe to call from any thread, and cheap; none allocates on the hot path
 * except the first time an op name or a shape is seen (then under the recursion guard). */
#ifndef TPROF_OPS_H
#define TPROF_OPS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "track/runtime.h"

/* Where an op was seen; goes to the report as op.source. */
enum tp_op_source { TP_SRC_BLAS, TP_SRC_INSTR, TP_SRC_PLT, TP_SRC_API };

/* A typed op's call shape (gemm: m, n, k, transposes, layout; gemv: m, n, trans; symm, trmm,
 * trsm: m, n, side, uplo; syrk: n, n, k, trans, uplo; dot, axpy: n only, m = 0). Characters are
 * 0 where they do not apply. */
struct tp_shape_key {
    int64_t m, n, k;
    char transa, transb, layout;
    char side, uplo;                /* 'L'/'R' and 'U'/'L' for symm, syrk, trmm, trsm */
    const struct tp_work_fn *named; /* TPROF_WORK's entry: m, n, k, more[] its parameters */
    int64_t more[5];
    /* not part of the key: 0, or this thread's number for this very key, so that a call with
     * the key of the thread's last one finds its slot without comparing (track/work/argwork.c) */
    uint64_t token;
};

/* Intern an op by name; the same name always gives the same id. kind: matmul, gemv, conv,
 * attention, norm, softmax, region, op, ... Returns an id >= 0, or -1 when the op table
 * (TPROF_MAX_OPS) is full (then the report is marked partial). */
int tp_op_intern(const char *name, const char *kind, enum tp_op_source src);

/* Open op id on this thread. key identifies the frame (the function address for instrumented
 * functions, 0 otherwise) and sp is a frame address of the caller (0 if unknown): together they
 * let tp_op_end() repair a stack that longjmp or an exception skipped. Returns 1 if the op was
 * pushed, 0 if not (disabled, stack full, outside the TPROF_SCHEDULE window). */
int tp_op_begin(int id, uintptr_t key, uintptr_t sp);

/* Close the innermost open op matching (id, key). flops/bytes add to the op's work (0 = none);
 * shape may be NULL. An end with no matching begin is counted as unpaired and dropped. Returns
 * the call's duration in ticks (the hooks' cost inside it taken out), TP_OP_NO_TIME when nothing
 * was closed or the call recursed into an open call of the same op. */
#define TP_OP_NO_TIME UINT64_MAX
uint64_t tp_op_end(int id, uintptr_t key, uintptr_t sp, uint64_t flops, uint64_t bytes,
                   const struct tp_shape_key *shape);

/* Waiting and CPU samples (track/ops/wait.h), charged to the op this thread works for: its innermost
 * open op, or on a thread with none open (a worker of an OpenMP or BLAS pool) the op that another
 * thread began last among those running. A wait of ticks of kinds (tp_wait_kind bits); a sample of
 * class cls (tp_sample_class). tp_ops_on_sample returns 1 when some op took it. Both
 * async-signal-safe. */
void tp_ops_on_wait(uint64_t ticks, unsigned kinds);
int tp_ops_on_sample(int cls);
/* Innermost open op on this thread, -1 if none. */
int tp_ops_current(void);
/* 1 when the innermost open op on this thread came from source src. */
int tp_op_top_is(enum tp_op_source src);
/* Add work to the innermost open op of this thread (annotation API). */
void tp_op_add_work(uint64_t flops, uint64_t bytes);

/* Called by the malloc hook for every recorded allocation: attribute it to the innermost op. */
void tp_ops_on_alloc(size_t bytes);
/* Name of op id (valid for the life of the process), NULL if unknown. */
const char *tp_ops_name(int id);
/* Shapes kept per op (slots of tp_ops_shape_desc). */
#define TP_OPS_MAX_SHAPES 64

/* Kind of op id (matmul, conv, ...), NULL if unknown. */
const char *tp_ops_kind(int id);
/* CLOCK_MONOTONIC ns of the first op begin or step anywhere, 0 while none has happened. */
extern __attribute__((visibility("hidden"))) _Atomic uint64_t tp_ops_first_ns_v;
static inline uint64_t tp_ops_first_ns(void)
{
    /* inline: the allocation path asks on every call */
    return atomic_load_explicit(&tp_ops_first_ns_v, memory_order_relaxed);
}

/* The first op or step has begun: remember when (tp_ops_first_ns) and look at the threads. */
void tp_ops_note_first(void);

/* Steps: each call of the TPROF_STEP function, or each tprof_step() marker, is one iteration. */
void tp_step_begin(void);
void tp_step_end(void);
void tp_step_mark(void);

/* Non-op -finstrument-functions (__cyg_profile_*) hooks run so far by this thread, and the
 * measured cost of one, in clock ticks << 16 (0 until measured). The hooks (preload/hook_cyg.c)
 * count and measure them; an op's time less (hooks run during it) x cost is the time it would
 * have taken without tprof's hooks. Defined here, where every op's time is corrected, so that
 * the op core needs nothing from the hooks above it. */
extern TP_TLS uint64_t tp_cyg_hooks;
extern uint64_t tp_cyg_hook_cost_fp;
/* Called at each op begin and end, with the op on top of this thread's stack before it (-1:
 * none), once set: by track/ops/demote.c when it demotes its first op, to learn which ops the counted
 * calls run in. A pointer, so that this core needs nothing from the demotion above it. */
typedef void (*tp_ops_boundary_fn)(int top);
extern _Atomic tp_ops_boundary_fn tp_ops_boundary_hook;

/* Ops interned so far, and the most the table can ever give ids to (TPROF_MAX_OPS, or the
 * directory's reach; 0 when ops are off): a table indexed by op id maps that many entries
 * reserve-only (tp_pages_map) and touches those of the first ones. */
int tp_ops_count(void);
int tp_ops_id_limit(void);

/* Set-up (from tp_init, after the configuration is read). */
void tp_ops_init(void);
/* The op names' lock around fork, and a child's counts restarted. */
void tp_ops_fork_prepare(void);
void tp_ops_fork_parent(void);
void tp_ops_fork_child(void);

#endif
