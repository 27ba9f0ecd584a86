/* The call-site index's generations (track/siteindex.c): entries, the index's layout, and its
 * growth into a successor twice the size. track/sites.c looks stacks up in it. */
#ifndef TPROF_SITEINDEX_H
#define TPROF_SITEINDEX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* An index entry, 4 bytes: record number + 1 in the low IDX_ID_BITS, 9 bits of the stack's hash
 * above, compared before the frames. Its slot: the hash's top bits (hhi, for moves). MOVED is 0,
 * so that an index replaced by a bigger one can give its pages back (they read as 0 then), and an
 * empty slot holds a number no record has. */
#define IDX_ID_BITS  23
#define IDX_ID_MASK  ((1u << IDX_ID_BITS) - 1)
#define IDX_EMPTY    IDX_ID_MASK /* no record has this number + 1: the table holds fewer */
#define IDX_MOVED    0u
#define IDX_MAX_RECS (IDX_ID_MASK - 1)
#define IDX_MIN_BITS 12 /* the first index: 4,096 slots, 3,072 sites */
#define IDX_MAX_GENS 40

struct sidx {
    uint64_t nslots; /* a power of 2 */
    int shift;       /* 64 - log2(nslots): a hash's slot is h >> shift */
    uint64_t kept;   /* bytes it holds in memory: all of it, its first page once replaced */
    _Atomic(struct sidx *) next;
    _Atomic uint32_t slots[];
};

static inline size_t idx_bytes(uint64_t nslots)
{
    return sizeof(struct sidx) + sizeof(uint32_t) * nslots;
}

/* Forget the generations made (a new initialisation), make one of 2^bits slots (NULL when it
 * cannot be mapped), the bytes all of them still hold. */
void tp_sidx_reset(void);
struct sidx *tp_sidx_new(int bits);
uint64_t tp_sidx_kept(void);
/* Replace *cur by an index twice its size (the caller holds the growth lock); each entry's slot
 * from hhi, the top half of its stack's hash. -1 when it cannot be mapped. */
int tp_sidx_grow(_Atomic(struct sidx *) *cur, const uint32_t *hhi);

#endif
