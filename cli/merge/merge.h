/* The model of `tprof merge` (cli/merge/merge.c): many processes' reports summed into one. */
#ifndef TPROF_MERGE_H
#define TPROF_MERGE_H

#include <stddef.h>

#include "report/report.h"

/* Merge in[0..nin) (files[i] names in[i] in notes) into r, which is initialised here; the
 * caller runs tp_analyze on it. 0, or -1 when out of memory. */
int tp_merge_reports(const struct tp_report *in, size_t nin, const char *const *files,
                     struct tp_report *r);
/* The inputs' rolled-up sites into m->rollups, rows of one function and module summed
 * (cli/merge/merge_rollup.c). 0, or -1 when out of memory. */
int tp_merge_rollups(const struct tp_report *in, size_t nin, struct tp_memory *m);
/* Latency distributions merged (cli/merge/merge_latency.c): tp_lat_add each input's into a zeroed
 * accumulator, then tp_lat_finish with the inputs again (the pooled standard deviation needs
 * them once the overall mean is known). */
struct tp_lat_acc {
    uint64_t n;
    uint64_t min, max;
    int any;
    double sum_mean, p50, p95, p99; /* sums of n_i * x_i */
    double ci_lo, ci_hi;
};
void tp_lat_add(struct tp_lat_acc *a, const struct tp_latency *l);
void tp_lat_finish(const struct tp_lat_acc *a, const struct tp_latency *const *parts, size_t np,
                   struct tp_latency *out);
/* The processes' CPU figures summed and their threads listed together (cli/merge/merge_cpu.c). 0, or
 * -1 when out of memory. */
int tp_merge_cpu(const struct tp_report *in, size_t nin, struct tp_report *r);
/* The union of the processes' modules by path and build-id (cli/merge/merge_modules.c). 0, or -1
 * when out of memory. */
int tp_merge_modules(const struct tp_report *in, size_t nin, struct tp_report *r);

#endif
