/* The report's series over time: the heap's live bytes, sampled by a thread of ours while
 * TPROF_HTML is set, and the latency of each step (track/series.c). */
#ifndef TPROF_SERIES_H
#define TPROF_SERIES_H

#include <stdint.h>

struct tp_report;

/* Start the heap sampler thread when TPROF_HTML is set (from the constructor, never inside
 * malloc). */
void tp_series_start(void);
/* A step ended: index among the recorded steps, its end (ns since the start) and duration. */
void tp_series_step(uint64_t index, uint64_t end_ns, uint64_t ns);
/* In a fork child: both series start afresh, and the sampler, which did not survive the fork,
 * is started again. */
void tp_series_fork_child(void);
/* Fill r->memory.series (with the exact peak among the points) and r->steps.series, each at
 * most TP_SERIES_MAX points; after the memory and the steps are collected. */
void tp_series_collect(struct tp_report *r);

#endif
