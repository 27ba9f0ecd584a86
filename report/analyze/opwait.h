/* Work or wait of each op (the figures track/ops/wait.c measures): the share of an op's time that its
 * threads spent waiting for other threads, the rule under which the verdict says so, and the
 * sentence. Pure: the text and HTML reports and `tprof report` all say the same from the model. */
#ifndef TPROF_OPWAIT_H
#define TPROF_OPWAIT_H

#include <stddef.h>

#include "report/report.h"

/* The verdict names an op whose waiting is at least this share of its time ... */
#define TP_WAIT_SHARE 0.5
/* ... and at least this long: a few milliseconds at a barrier are no headline. */
#define TP_WAIT_MIN_NS 10000000ull

/* Whether a module's file name is an OpenMP runtime whose text is waiting and scheduling, not
 * work (libgomp, LLVM's libomp, Intel's libiomp5, and the copies wheels ship renamed with a hash):
 * a parallel region's work runs in the program's own outlined functions. */
int tp_spin_module(const char *path);
/* The samples outside every op that the verdict calls spinning: at least 1% of them. */
int tp_outside_spin_said(const struct tp_samples *s);
/* wait_ns over wait_ns + work_ns: 0 when both are 0 (nothing known). */
double tp_op_wait_share(const struct tp_op *o);
/* 1 when the share rests on an estimate (the spin, or the work, counted from CPU samples): the
 * reports mark it "~". */
int tp_op_wait_estimated(const struct tp_op *o);
/* 1 when the verdict names the op (the rule above). */
int tp_op_wait_rule(const struct tp_op *o);
/* The hooked waits' kinds (track/ops/wait.c's bits) as the calls' names, comma-separated, into out
 * ("" for none). */
void tp_wait_kind_names(unsigned kinds, char *out, size_t n);
/* Add s's work and waiting to d's (`tprof merge`): the figures add up, saturating; a method and
 * the calls' names are the first input's that has them (a report of a tprof before them has
 * none). */
void tp_op_wait_add(struct tp_op *d, const struct tp_op *s);
/* Set each op's wait_share and the verdict's wait_op and wait_text: the op with the most waiting
 * under the rule, NULL when none. */
void tp_wait_verdict(struct tp_report *r);

#endif
