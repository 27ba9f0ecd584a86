/* The op table as ops.c records into it, for ops_collect.c, which turns it into the report.
 *
 * ops.c writes these while the program runs (atomics: ops end on many threads at once);
 * ops_collect.c only reads them, at the end of a run or of a window. Nothing else includes this
 * header: everyone else goes through ops.h. */
#ifndef TPROF_OPS_TABLE_H
#define TPROF_OPS_TABLE_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "track/ops.h"

struct tp_histo;

/* Ops open at once on one thread; deeper calls are counted as overflow and not timed. */
#define TP_OPS_MAX_DEPTH 128

/* One shape of one op. A slot is claimed (used 0 -> 1), its key written, then published
 * (used 2); only then are its counters meaningful. */
struct tp_shape_rec {
    struct tp_shape_key key;
    _Atomic uint64_t calls, ticks, flops, bytes;
    _Atomic int used; /* 0 free, 1 being filled, 2 ready */
};

/* One op: its name and statistics. Times are in clock ticks (common/clock.h). */
struct tp_op_rec {
    const char *name, *kind;
    enum tp_op_source src;
    uint64_t hash;
    _Atomic uint64_t calls, total, self, flops, bytes, alloc_bytes, alloc_count;
    _Atomic uint64_t warm_calls, warm_ticks, skipped;
    /* Wall-clock time (track/opwall.h): the word of threads inside the op, the busy periods'
     * sum in uncorrected ticks, and the ticks the hook-cost correction took out of total, to
     * take the same fraction out of the wall-clock sum. */
    _Atomic uint64_t in_total, wall, hook_total;
    _Atomic int flops_known;
    struct tp_histo *histo;
    struct tp_shape_rec shapes[TP_OPS_MAX_SHAPES];
    _Atomic uint64_t shapes_dropped;
};

extern struct tp_op_rec *tp_op_recs; /* tp_op_cap records, the first tp_op_nrecs in use */
extern _Atomic int tp_op_nrecs;
extern int tp_op_cap; /* TPROF_MAX_OPS, 0 when the table could not be allocated */
/* Names refused by a full table, calls nested too deep, ends without a begin. */
extern _Atomic uint64_t tp_ops_dropped, tp_ops_overflow, tp_ops_unpaired;

/* Steps: their latency histogram (ticks), steps ended, and those of them in the warm-up. */
extern struct tp_histo *tp_step_histo;
extern _Atomic uint64_t tp_step_count, tp_step_warm;

/* Field by field: the padding of a key built on the caller's stack is not initialised. */
static inline int tp_shape_same(const struct tp_shape_key *a, const struct tp_shape_key *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->transa == b->transa &&
           a->transb == b->transb && a->layout == b->layout && a->side == b->side &&
           a->uplo == b->uplo && a->named == b->named &&
           (!a->named || !memcmp(a->more, b->more, sizeof a->more));
}

#endif
