/* What a user can do about the time outside every op: one decision table from what tprof knows
 * of each sampled function (report.h's struct tp_outside_fn: its kind, whether its module is
 * stripped, what was inlined into it), so that every line of advice is one that can be
 * followed. Pure: the text and HTML reports and `tprof report` say the same from the model. */
#ifndef TPROF_ADVICE_H
#define TPROF_ADVICE_H

#include "common/buf.h"
#include "report/report.h"

/* A sampled function that works: not a runtime's spin or yield loop (threads waiting). */
int tp_advice_works(const struct tp_outside_fn *f);

/* f's samples as a share of all the run's CPU samples (the verdict's shares are of the run). */
double tp_advice_run_share(const struct tp_report *r, const struct tp_outside_fn *f);

/* The working functions the samples outside every op landed in, into t: the first with the
 * number of samples the shares are of, then up to two more that took at least 5% of the samples
 * outside every op. Returns how many were named. */
size_t tp_advice_names(const struct tp_report *r, struct tp_buf *t);

/* The advice on the functions tp_advice_names names and on the waiting among the samples, one
 * sentence per row of the table, each starting with a space. */
void tp_advice_outside(const struct tp_report *r, struct tp_buf *t);

/* The rebuild flag that leaves out the hooks of the instrumented functions too short to time
 * (demoted: ops[].demoted), one sentence starting with a space, when what their hooks cost
 * (program.hook_ns a hook, two a call) is at least 1% of run_ns (the threads' time summed, or
 * the program's). Nothing otherwise. */
void tp_advice_exclude(const struct tp_report *r, uint64_t run_ns, struct tp_buf *t);

#endif
