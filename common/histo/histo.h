/* A bounded-memory latency histogram (implemented in common/histo/histo.c).
 *
 * Log-linear buckets give every percentile within 1% relative error whatever the range, in a
 * fixed amount of memory, with lock-free concurrent adds. min, max, count, mean and standard
 * deviation are exact; so are the percentiles and the median's confidence interval while at
 * most 4,096 values were added (they are kept), and past that the interval encloses the exact
 * one. */
#ifndef TPROF_HISTO_H
#define TPROF_HISTO_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

struct tp_histo;

struct tp_histo *tp_histo_new(void); /* NULL on allocation failure */
void tp_histo_destroy(struct tp_histo *h);
/* A histogram in memory the caller owns (tp_histo_bytes() of zeroes, 8-byte aligned): a table
 * of many keeps them in one mapping, whose resident pages one mincore call tells. */
size_t tp_histo_bytes(void);
struct tp_histo *tp_histo_at(void *zeroed);
void tp_histo_add(struct tp_histo *h, uint64_t v); /* thread-safe, lock-free, no allocation */
/* The same when only the calling thread ever adds to h (readers may run at any time): no locked
 * instruction, the same figures. */
void tp_histo_add_own(struct tp_histo *h, uint64_t v);
void tp_histo_merge(struct tp_histo *dst, const struct tp_histo *src);
uint64_t tp_histo_count(const struct tp_histo *h);
/* n, min, p50, p95, p99, max, mean, stddev and the 95% CI of the median. */
void tp_histo_summary(const struct tp_histo *h, struct tp_latency *out);

#endif
