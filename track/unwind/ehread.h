/* A bounded little-endian reader of .eh_frame bytes (track/unwind/ehframe.c, ehplay.c, ehrule.c): a
 * read past the end sets bad and gives 0, never touches the bytes beyond; and the encoded
 * pointers of .eh_frame. */
#ifndef TPROF_EHREAD_H
#define TPROF_EHREAD_H

#include <dwarf.h>
#include <stddef.h>
#include <stdint.h>

#include "track/unwind/ehframe.h"

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

/* A value of pointer encoding enc's format (its low four bits), unapplied. -1: a format this
 * reader does not know. */
static inline int rd_format(struct rd *r, uint8_t enc, uint64_t *v)
{
    switch (enc & 0x0f) {
    case DW_EH_PE_absptr: *v = rd_u(r, 8); break;
    case DW_EH_PE_uleb128: *v = rd_uleb(r); break;
    case DW_EH_PE_udata2: *v = rd_u(r, 2); break;
    case DW_EH_PE_udata4: *v = rd_u(r, 4); break;
    case DW_EH_PE_udata8: *v = rd_u(r, 8); break;
    case DW_EH_PE_sleb128: *v = (uint64_t)rd_sleb(r); break;
    case DW_EH_PE_sdata2: *v = (uint64_t)(int64_t)(int16_t)rd_u(r, 2); break;
    case DW_EH_PE_sdata4: *v = (uint64_t)(int64_t)(int32_t)rd_u(r, 4); break;
    case DW_EH_PE_sdata8: *v = rd_u(r, 8); break;
    default: return -1;
    }
    return r->bad ? -1 : 0;
}

/* An encoded address: pc-relative (to the field), relative to base (datarel: the .eh_frame_hdr),
 * or absolute (the module's own address, which the bias moves). -1: not read here. */
static inline int rd_ptr(struct rd *r, uint8_t enc, const struct tp_eh_src *s, uintptr_t *out)
{
    uintptr_t at = (uintptr_t)r->p;
    uint64_t v;
    if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect) || rd_format(r, enc, &v) < 0)
        return -1;
    switch (enc & 0x70) {
    case DW_EH_PE_pcrel: *out = at + (uintptr_t)v; return 0;
    case DW_EH_PE_datarel: *out = s->hdr + (uintptr_t)v; return 0;
    case DW_EH_PE_absptr:
        /* A library's absolute address in memory may have been relocated already. */
        if (!s->file && s->bias)
            return -1;
        *out = (uintptr_t)v + s->bias;
        return 0;
    }
    return -1;
}

static inline struct rd rd_at(const struct tp_eh_src *s, uintptr_t a)
{
    struct rd r = {(const uint8_t *)a, (const uint8_t *)s->hi, a < s->lo || a >= s->hi};
    return r;
}

#endif
