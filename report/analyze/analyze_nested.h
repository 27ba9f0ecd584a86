/* The op the verdict reasons on when the time and the FLOPs are on different ops: darknet built
 * -O1 has gemm, with a work entry's FLOPs and next to no self time, calling gemm_nn, which has
 * all the time and no FLOPs. */
#ifndef TPROF_ANALYZE_NESTED_H
#define TPROF_ANALYZE_NESTED_H

#include "common/buf.h"
#include "report/report.h"

/* The op d ran inside (ops[].parent: every call of d began directly in it, or in an op without
 * FLOPs or bytes that began in it, up to four such levels) when d has neither FLOPs nor bytes,
 * that op has FLOPs, and d's total is at least half of its total (most of the op's time is d's);
 * else NULL. */
const struct tp_op *tp_flops_parent(const struct tp_report *r, const struct tp_op *d);
/* An op's share of the run by its total time: its wall-clock time when the report has it, else
 * its thread time, over the run's time; at most 1. */
double tp_total_share(const struct tp_op *o, uint64_t denom);
/* ", on 2 threads at once" after the verdict's op (report/analyze/analyze_nested.c). */
void tp_threads_at_once(const struct tp_op *d, struct tp_buf *t);

#endif
