/* A bounded little-endian reader of .eh_frame bytes (track/ehframe.c, track/ehrule.c): a read
 * past the end sets bad and gives 0, never touches the bytes beyond. */
#ifndef TPROF_EHREAD_H
#define TPROF_EHREAD_H

#include <stddef.h>
#include <stdint.h>

/* A bounded little-endian reader. */
struct rd {
    const uint8_t *p, *end;
    int bad;
};

static inline uint64_t rd_u(struct rd *r, int n)
{
    if (r->bad || (size_t)(r->end - r->p) < (size_t)n) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | r->p[i];
    r->p += n;
    return v;
}

static inline uint64_t rd_byte(struct rd *r)
{
    if (__builtin_expect(r->p < r->end, 1))
        return *r->p++;
    r->bad = 1;
    return 0;
}

static inline uint64_t rd_uleb(struct rd *r)
{
    if (__builtin_expect(r->p < r->end && !(*r->p & 0x80), 1))
        return *r->p++; /* most operands are one byte */
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint64_t b = rd_byte(r);
        if (r->bad)
            return 0;
        if (shift < 64)
            v |= (b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static inline int64_t rd_sleb(struct rd *r)
{
    uint64_t v = 0, b;
    int shift = 0;
    do {
        b = rd_byte(r);
        if (r->bad)
            return 0;
        if (shift < 64)
            v |= (b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

#endif
