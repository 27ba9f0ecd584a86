/* The call-site index's generations (track/sites/siteindex.c): entries, the index's layout, and its
 * growth into a successor twice the size. track/sites/sites.c looks stacks up in it. */
#ifndef TPROF_SITEINDEX_H
#define TPROF_SITEINDEX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* An index entry, 4 bytes: record number + 1 in the low IDX_ID_BITS, and above them the 9 bits of
 * the stack's hash below its top 16, compared before the frames. Its slot: the hash's top bits.
 * Each record keeps the top 16 (sites.c's hhi), so that a move finds an entry's slot from those
 * and the entry's 9, 25 bits, more than the biggest index needs (IDX_MAX_RECS at three quarters
 * full: 2^24 slots), without reading the record's frames. MOVED is 0, so that an index replaced
 * by a bigger one can give its pages back (they read as 0 then), and an empty slot holds a number
 * no record has. */
#define IDX_ID_BITS  23
#define IDX_ID_MASK  ((1u << IDX_ID_BITS) - 1)
#define IDX_EMPTY    IDX_ID_MASK /* no record has this number + 1: the table holds fewer */
#define IDX_MOVED    0u
#define IDX_MAX_RECS (IDX_ID_MASK - 1)
#define IDX_MIN_BITS 12 /* the first index: 4,096 slots, 3,072 sites */
#define IDX_MAX_GENS 40
#define IDX_TAG_LOW  39 /* the tag: hash bits 39..47 */

static inline uint32_t idx_tag(uint64_t h)
{
    return (uint32_t)(h >> IDX_TAG_LOW) << IDX_ID_BITS;
}
/* The top 25 bits of an entry's hash, from its record's top 16 and its tag, in place. */
static inline uint64_t idx_hash_of(uint16_t top, uint32_t v)
{
    return (uint64_t)top << 48 | (uint64_t)(v >> IDX_ID_BITS) << IDX_TAG_LOW;
}

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
 * from hhi, the top 16 bits of its record's stack hash, and its tag. -1 when it cannot be mapped. */
int tp_sidx_grow(_Atomic(struct sidx *) *cur, const uint16_t *hhi);

#endif
