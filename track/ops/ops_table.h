/* The op table as ops.c records into it, for ops_collect.c, which turns it into the report.
 *
 * ops_table.c holds the records and names; ops.c writes the statistics while the program runs
 * (atomics: ops end on many threads at once); ops_collect.c only reads them, at the end of a
 * run or of a window. Outside the op core (ops*.c, demote.c, steps.c) everyone goes through
 * ops.h. */
#ifndef TPROF_OPS_TABLE_H
#define TPROF_OPS_TABLE_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "track/ops/ops.h"

struct tp_histo;

/* Ops open at once on one thread; deeper calls are counted as overflow and not timed. */
#define TP_OPS_MAX_DEPTH 128

/* One shape of one op. A slot is claimed (used 0 -> 1), its key written, then published
 * (used 2); only then are its counters meaningful. */
struct tp_shape_rec {
    struct tp_shape_key key;
    _Atomic uint64_t calls, ticks, flops, bytes;
    _Atomic int used;                                        /* 0 free, 1 being filled, 2 ready */
    _Atomic uint64_t sh_calls, sh_ticks, sh_flops, sh_bytes; /* other threads' (see tp_op_rec) */
};

/* One op: its name and statistics. Times are in clock ticks (common/clock.h).
 *
 * The calls' figures (calls, total, self, flops, bytes, warm_*, wall, hook_total, the histogram,
 * the shapes' counters) are written by one thread, the op's owner (the first to end a call of it), with
 * plain loads and stores: most ops are called from one thread, and a locked add costs as much as
 * the rest of an op's bookkeeping. The calls other threads end go to the sh_ figures and a
 * histogram of their own (sh_histo, made at the first), with atomic adds; the report adds the
 * two (tp_op_calls and co.). */
struct tp_op_rec {
    const char *name, *kind;
    enum tp_op_source src;
    uint64_t hash;
    _Atomic uint64_t calls, total, self, flops, bytes, alloc_bytes, alloc_count;
    _Atomic uint64_t warm_calls, warm_ticks, skipped;
    _Atomic uintptr_t owner; /* the owner thread's token, 0 until a call ends */
    _Atomic uint64_t sh_calls, sh_total, sh_self, sh_flops, sh_bytes, sh_warm_calls, sh_warm_ticks,
        sh_wall, sh_hook_total;
    struct tp_histo *_Atomic sh_histo;
    /* Wall-clock time (track/ops/opwall.h): the word of threads inside the op, the busy periods'
     * sum in uncorrected ticks, and the ticks the hook-cost correction took out of total, to
     * take the same fraction out of the wall-clock sum. */
    _Atomic uint64_t in_total, wall, hook_total;
    _Atomic int flops_known;
    /* The op every call began directly inside: its id + 1; 0 before the first call, -1 once
     * calls began inside different ops or outside every op (report/verdict_nested.c). */
    _Atomic int parent;
    /* Waiting (track/ops/wait.h), by every thread alike: ticks inside hooked waiting calls and the
     * kinds of those calls (tp_wait_kind bits); CPU-time samples charged to the op, and of those
     * the ones in an OpenMP runtime's spin code and inside a hooked waiting call. */
    _Atomic uint64_t wait_ticks, cpu_samples, spin_samples, inwait_samples;
    _Atomic unsigned wait_kinds;
    struct tp_histo *histo;
    /* TP_OPS_MAX_SHAPES slots in the record's chunk, apart from the records: most ops have no
     * shape, and their slots' pages are never touched */
    struct tp_shape_rec *shapes;
    _Atomic uint64_t shapes_dropped;
};

/* Records by id: chunks of records (track/ops/ops_table.c), none of which ever moves, and for each
 * id its record's address (tp_op_ptr, mapped reserve-only for every id: 8 bytes touched an op;
 * one load on the hot path, where the chunk directory would take a shift, a mask and a multiply
 * more). An id handed out is below tp_op_nrecs, and its address was published before it. */
#define TP_OPS_CHUNK_BITS 8
#define TP_OPS_CHUNK      (1 << TP_OPS_CHUNK_BITS)
#define TP_OPS_MAX_IDS    (1 << 20) /* TPROF_MAX_OPS's top: the directory's reach */
extern struct tp_op_rec *_Atomic tp_op_dir[TP_OPS_MAX_IDS / TP_OPS_CHUNK];
extern struct tp_op_rec *_Atomic *tp_op_ptr;
static inline struct tp_op_rec *tp_op_rec(int id)
{
    return atomic_load_explicit(&tp_op_ptr[id], memory_order_acquire);
}
extern _Atomic int tp_op_nrecs;
/* Refused lookups of names a full table gave no id, calls nested too deep, ends without a
 * begin. */
extern _Atomic uint64_t tp_ops_dropped, tp_ops_overflow, tp_ops_unpaired;

/* The table's set-up (tp_ops_init) and a forked child's empty histograms. */
void tp_ops_table_init(void);
void tp_ops_table_fork_child(void);
/* Bytes the op table holds in memory now (resident pages of its chunks, its indexes, the
 * record addresses). */
uint64_t tp_ops_resident(void);

/* What a full table lost, for the report: why it stopped, the lookups refused, the distinct
 * names refused and the first TP_OPS_LOST_NAMES of them, the ops it holds. Lock-free: a report
 * from a signal handler does not wait. */
enum tp_ops_limit { TP_OPS_GROWING, TP_OPS_MAX_OPS, TP_OPS_BUDGET, TP_OPS_NO_MEMORY };
#define TP_OPS_LOST_NAMES 8
struct tp_ops_lost {
    enum tp_ops_limit limit;
    uint64_t lookups, names;
    int names_inexact; /* names is a lower bound (more than 8,192 refused) */
    const char *const *first;
    int nfirst, ops;
};
void tp_ops_lost(struct tp_ops_lost *out);
/* The memory budget in force (TPROF_MEMORY_BUDGET, or its default for the peak RSS now). */
uint64_t tp_ops_budget(void);

/* Steps: their latency histogram (ticks), steps ended, and those of them in the warm-up. */
extern struct tp_histo *tp_step_histo;
extern _Atomic uint64_t tp_step_count, tp_step_warm;

/* The calls' figures of an op, its owner's and the other threads' (see tp_op_rec). */
#define TP_OP_SUM(r, f) (atomic_load(&(r)->f) + atomic_load(&(r)->sh_##f))
static inline uint64_t tp_op_calls(struct tp_op_rec *r)
{
    return TP_OP_SUM(r, calls);
}

/* Field by field: the padding of a key built on the caller's stack is not initialised. */
static inline int tp_shape_same(const struct tp_shape_key *a, const struct tp_shape_key *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->transa == b->transa &&
           a->transb == b->transb && a->layout == b->layout && a->side == b->side &&
           a->uplo == b->uplo && a->named == b->named &&
           (!a->named || !memcmp(a->more, b->more, sizeof a->more));
}

#endif
