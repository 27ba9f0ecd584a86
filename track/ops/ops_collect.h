/* The report's ops, steps and op-time stacks from what ops.c and optree.c recorded. Above the op
 * core: it reads the op table (names, kinds, shapes) and converts its ticks to nanoseconds. */
#ifndef TPROF_OPS_COLLECT_H
#define TPROF_OPS_COLLECT_H

#include <stddef.h>

struct tp_report;

/* Fill r->ops and r->steps, and the notes on what was not recorded (from tp_collect). */
void tp_ops_collect(struct tp_report *r);
/* 1 when some op was called or a step ended: what tp_ops_collect would report, without
 * collecting it. */
int tp_ops_any_work(void);
/* Fill r->opstacks (times in ns) and r->opstacks_dropped from the op-stack table, named by op. */
void tp_optree_collect(struct tp_report *r);
/* The nanoseconds per tick the last tp_ops_collect() used: other tables of the same report
 * convert with it, so that their times add up exactly to the ops'. */
double tp_ops_ns_per_tick(void);
/* The shape in slot `slot` of op id as the report writes it ("m=64 n=32 k=16 NN row"): 0, or -1
 * when there is no such shape. */
int tp_ops_shape_desc(int id, int slot, char *out, size_t n);

#endif
