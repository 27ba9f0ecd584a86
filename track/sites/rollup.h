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

/* What the caller knows of sites: the return addresses of record id (frames[0] called the
 * allocator), and for one of them the function holding it and its module (malloc'ed, NULL when
 * unknown), or 1 when the address is to be passed over (tprof's own code, the allocator). */
typedef const uintptr_t *(*tp_site_pcs_fn)(uint32_t id, uint32_t *n);
typedef int (*tp_describe_fn)(void *ctx, uintptr_t pc, char **function, char **module);

/* Roll rest[0..n) up into m->rollups. A site with frames is keyed by its frames[0]; one without
 * (frames NULL) holds its record number in nframes and is keyed by the function and module of
 * its first return address not passed over, each address described once. */
void tp_rollup_sites(struct tp_memory *m, const struct tp_site *rest, size_t n, tp_site_pcs_fn pcs,
                     tp_describe_fn describe, void *ctx);

#endif
