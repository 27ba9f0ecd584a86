/* Call sites the JSON report does not write one by one (past TPROF_JSON_SITES), summed per
 * function and module of their first frame: with the sites written, every count adds up exactly
 * to the memory's totals. */
#ifndef TPROF_SITEROLLUP_H
#define TPROF_SITEROLLUP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/report.h"

struct tp_site_rollup {
    char *function; /* NULL when no symbol covers the first frame */
    char *module;   /* NULL when unknown */
    uint64_t sites; /* how many sites the row holds */
    uint64_t allocs, frees, bytes;
    uint64_t live_at_peak_bytes, live_at_exit_bytes, live_at_exit_allocs;
};

/* Release m's sites and rows (tp_report_free). */
static inline void tp_memory_free_sites(struct tp_memory *m)
{
    for (size_t i = 0; i < m->nsites; i++)
        tp_site_free_frames(&m->sites[i]);
    free(m->sites);
    for (size_t i = 0; i < m->nrollups; i++) {
        free(m->rollups[i].function);
        free(m->rollups[i].module);
    }
    free(m->rollups);
}

#endif
