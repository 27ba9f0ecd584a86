/* Which call sites the JSON report writes one by one, and the rest rolled up per function and
 * module (struct tp_site_rollup), with exact sums. */
#ifndef TPROF_ROLLUP_H
#define TPROF_ROLLUP_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* Move to the front of all[0..k) the top n sites by each measure the report ranks by (live at
 * the peak, bytes allocated, allocations, live at exit; ties in the order given, sites with 0 of
 * a measure not ranked by it). Returns how many moved: at most 4n. */
size_t tp_rollup_select(struct tp_site *all, size_t k, size_t n);

/* The first frame of site id as its report would show it (function and module malloc'ed; both
 * NULL when the site has no frame): given by the caller, which symbolises. */
typedef void (*tp_first_frame_fn)(void *ctx, uint32_t id, char **function, char **module);

/* Roll rest[0..n) up into m->rollups. A site with frames is keyed by its frames[0]; one without
 * (frames NULL) holds its record number in nframes, and first() names it. */
void tp_rollup_sites(struct tp_memory *m, const struct tp_site *rest, size_t n,
                     tp_first_frame_fn first, void *ctx);

#endif
