/* Probes of the library's private state, for the unit tests only. Each tests/probe_*.c compiles
 * the one library file it looks into, with the probe added, and a test program that links it
 * takes that file's functions from it instead of from the library's archive: the library itself
 * carries no function that only a test calls. */
#ifndef TPROF_TESTS_PROBE_H
#define TPROF_TESTS_PROBE_H

#include <stdint.h>

#include "common/histo/histo.h"
#include "track/unwind/ehframe.h"

/* track/unwind/ehframe.c: the binary-search table's entries, how many, and the i-th FDE's range
 * [*start, *end). -1 when there is no table the reader reads. */
long tp_eh_fde_count(const struct tp_eh_src *s);
int tp_eh_fde_range(const struct tp_eh_src *s, long i, uintptr_t *start, uintptr_t *end);

/* common/histo/histo.c: quantile q in [0,1] (0 when empty), as tp_histo_summary computes its p50,
 * p95 and p99. */
uint64_t tp_histo_quantile(const struct tp_histo *h, double q);

/* track/ops/ops.c: the ops open on this thread. */
int tp_op_depth(void);

#endif
