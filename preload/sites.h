/* Call sites (DESIGN §6): the stack above an allocator call, TPROF_STACK frames deep, deduplicated
 * into a fixed-capacity lock-free table. Site 0 collects allocations made when the table was full. */
#ifndef TPROF_SITES_H
#define TPROF_SITES_H

#include <stdatomic.h>
#include <stdint.h>

struct tp_site_rec {
    uint64_t hash;
    uint32_t nframes;          /* 0: slot unused (lost an insertion race) */
    _Atomic uint64_t allocs, frees, bytes;
    _Atomic uint64_t live, peak_live, at_peak, seen_pseq; /* live blocks = allocs - frees */
};

void tp_sites_init(void);
/* The site of the current allocation; ra is the shim's return address (used alone at depth 1). */
uint32_t tp_site_capture(void *ra);
uint32_t tp_sites_count(void);
struct tp_site_rec *tp_site_get(uint32_t id);
/* Frames of site id (return addresses, frames[0] called the allocator). */
const uintptr_t *tp_site_frames(uint32_t id, uint32_t *n);
uint64_t tp_sites_dropped(void);
/* Is addr inside libtprof.so? */
int tp_addr_is_ours(uintptr_t addr);

#endif
