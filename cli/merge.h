/* The model of `tprof merge` (cli/merge.c): many processes' reports summed into one. */
#ifndef TPROF_MERGE_H
#define TPROF_MERGE_H

#include <stddef.h>

#include "report/report.h"

/* Merge in[0..nin) (files[i] names in[i] in notes) into r, which is initialised here; the
 * caller runs tp_analyze on it. 0, or -1 when out of memory. */
int tp_merge_reports(const struct tp_report *in, size_t nin, const char *const *files,
                     struct tp_report *r);
/* The inputs' rolled-up sites into m->rollups, rows of one function and module summed
 * (cli/merge_rollup.c). 0, or -1 when out of memory. */
int tp_merge_rollups(const struct tp_report *in, size_t nin, struct tp_memory *m);
/* The processes' CPU figures summed and their threads listed together (cli/merge_cpu.c). 0, or
 * -1 when out of memory. */
int tp_merge_cpu(const struct tp_report *in, size_t nin, struct tp_report *r);

#endif
