/* CFA rules from .eh_frame_hdr and .eh_frame in memory (see ehframe.h).
 *
 * Every read goes through struct rd, bounded by the segment that holds the tables: a table that
 * points elsewhere makes the reader give up (TP_EH_ASK_DW), never read out of bounds. Only the
 * registers the walk uses are followed (the return address, rbp); the other registers' rules are
 * parsed and dropped. What libdw does and this reader copies, for the same answer at every
 * address: the x86-64 ABI's initial rules (rbp and the return address "same value", so that a
 * CIE that says nothing of them gives "no rule"), DW_CFA_remember_state saving the CFA with the
 * registers, DW_CFA_def_cfa_register or _offset after an expression making the CFA invalid, and
 * the rule in force at an address being the last row that starts at or before it. */
#include "track/unwind/ehframe.h"

#include <dwarf.h>
#include <string.h>

#include "track/unwind/ehplay.h"
#include "track/unwind/ehread.h"

/* ---- the search table ---- */

/* The table of .eh_frame_hdr: (initial location, FDE) pairs of 4-byte offsets from the header,
 * sorted. Any other layout is left to libdw. */
static int table(const struct tp_eh_src *s, const uint8_t **t, long *n)
{
    if (!s->hdr)
        return -1;
    struct rd r = rd_at(s, s->hdr);
    uint8_t version = (uint8_t)rd_u(&r, 1), ptr_enc = (uint8_t)rd_u(&r, 1);
    uint8_t count_enc = (uint8_t)rd_u(&r, 1), table_enc = (uint8_t)rd_u(&r, 1);
    uint64_t skip, count;
    /* the pointer to .eh_frame is not needed: the table points at each FDE */
    if (r.bad || version != 1 || table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
        ptr_enc == DW_EH_PE_omit || rd_format(&r, ptr_enc, &skip) < 0 ||
        (count_enc & 0xf0) != DW_EH_PE_absptr || rd_format(&r, count_enc, &count) < 0)
        return -1;
    if (count > (uint64_t)(r.end - r.p) / 8)
        return -1;
    *t = r.p;
    *n = (long)count;
    return 0;
}

static int32_t entry(const uint8_t *t, long i, int k)
{
    int32_t v;
    memcpy(&v, t + 8 * i + 4 * k, 4);
    return v;
}

/* ---- CIE and FDE ---- */

/* The length and the end of the entry at r (its id next). -1: a terminator or out of bounds. */
static int entry_span(struct rd *r, const uint8_t **end)
{
    uint64_t len = rd_u(r, 4);
    if (len == 0xffffffffu)
        len = rd_u(r, 8);
    if (r->bad || len == 0 || len > (uint64_t)(r->end - r->p))
        return -1;
    *end = r->p + len;
    return 0;
}

/* The last CIE read: a module's FDEs share one or two. */
static struct {
    uintptr_t at, lo, hi;
    struct cie c;
} last_cie;

void tp_eh_forget(void)
{
    memset(&last_cie, 0, sizeof last_cie);
    tp_eh_rows_forget();
}

static int parse_cie(const struct tp_eh_src *s, uintptr_t a, struct cie *c);

static int read_cie(const struct tp_eh_src *s, uintptr_t a, struct cie *c)
{
    if (last_cie.at == a && last_cie.lo == s->lo && last_cie.hi == s->hi && a) {
        *c = last_cie.c;
        return 0;
    }
    if (parse_cie(s, a, c) < 0)
        return -1;
    last_cie.at = a;
    last_cie.lo = s->lo;
    last_cie.hi = s->hi;
    last_cie.c = *c;
    return 0;
}

static int parse_cie(const struct tp_eh_src *s, uintptr_t a, struct cie *c)
{
    struct rd r = rd_at(s, a);
    const uint8_t *end;
    if (entry_span(&r, &end) < 0 || rd_u(&r, 4) != 0)
        return -1;
    r.end = end;
    int version = (int)rd_u(&r, 1);
    const char *aug = (const char *)r.p;
    const uint8_t *nul = r.bad ? NULL : memchr(r.p, 0, (size_t)(r.end - r.p));
    if ((version != 1 && version != 3) || !nul || (aug[0] && aug[0] != 'z'))
        return -1;
    r.p = nul + 1;
    c->code_align = rd_uleb(&r);
    c->data_align = rd_sleb(&r);
    if (version == 1)
        rd_u(&r, 1);
    else
        rd_uleb(&r);
    c->fde_enc = DW_EH_PE_absptr;
    c->z = aug[0] == 'z';
    if (c->z) {
        uint64_t n = rd_uleb(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p))
            return -1;
        struct rd d = {r.p, r.p + n, 0};
        r.p += n;
        for (const char *k = aug + 1; *k; k++) {
            uint64_t skip;
            uint8_t enc;
            if (*k == 'R') {
                c->fde_enc = (uint8_t)rd_u(&d, 1);
            } else if (*k == 'L') {
                rd_u(&d, 1);
            } else if (*k == 'P') {
                enc = (uint8_t)rd_u(&d, 1);
                if (rd_format(&d, enc, &skip) < 0)
                    return -1;
            } else if (*k != 'S') {
                return -1; /* libdw reads no further either; let it decide */
            }
        }
        if (d.bad)
            return -1;
    }
    c->insns = r.p;
    c->insns_end = end;
    return r.bad ? -1 : 0;
}

/* The FDE at a, with its CIE. */
static int read_fde(const struct tp_eh_src *s, uintptr_t a, struct fde *f, struct cie *c)
{
    struct rd r = rd_at(s, a);
    const uint8_t *end;
    if (entry_span(&r, &end) < 0)
        return -1;
    r.end = end;
    uintptr_t id_at = (uintptr_t)r.p;
    uint64_t id = rd_u(&r, 4);
    if (r.bad || id == 0 || read_cie(s, id_at - (uintptr_t)id, c) < 0)
        return -1;
    uint64_t range;
    if (rd_ptr(&r, c->fde_enc, s, &f->start) < 0 || rd_format(&r, c->fde_enc & 0x0f, &range) < 0)
        return -1;
    f->end = f->start + (uintptr_t)range;
    if (c->z) {
        uint64_t n = rd_uleb(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p))
            return -1;
        r.p += n;
    }
    f->insns = r.p;
    f->insns_end = end;
    return r.bad ? -1 : 0;
}

int tp_eh_frame_at(const struct tp_eh_src *s, uintptr_t pc, struct tp_eh_frame *out,
                   uintptr_t *row_end)
{
    const uint8_t *t;
    long n;
    if (table(s, &t, &n) < 0)
        return TP_EH_ASK_DW;
    /* the last entry that starts at or before pc */
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->hdr + (uintptr_t)(intptr_t)entry(t, mid, 0) <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return TP_EH_NONE;
    struct fde f;
    struct cie c;
    if (read_fde(s, s->hdr + (uintptr_t)(intptr_t)entry(t, lo - 1, 1), &f, &c) < 0 || pc < f.start)
        return TP_EH_ASK_DW;
    if (pc >= f.end)
        return TP_EH_NONE;
    if (f.insns_end - f.insns >= TP_EH_LONG_FDE && tp_eh_long_fde(s, &f, &c, pc, out, row_end) == 0)
        return TP_EH_FOUND;
    struct play p;
    tp_eh_play_init(&p, &c, s, f.start, pc, f.end);
    if (tp_eh_play(&p, c.insns, c.insns_end, 1) < 0)
        return TP_EH_ASK_DW;
    p.init = p.cur;
    p.nsaved = 0;
    if (tp_eh_play(&p, f.insns, f.insns_end, 0) < 0)
        return TP_EH_ASK_DW;
    tp_eh_state(&p.cur, out);
    if (row_end)
        *row_end = p.row_end;
    return TP_EH_FOUND;
}
