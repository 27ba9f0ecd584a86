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
#include "track/ehframe.h"

#include <dwarf.h>
#include <string.h>

#include "track/cfaexpr.h"
#include "track/ehread.h"
#include "track/ehrule.h"

/* A value of pointer encoding enc's format (its low four bits), unapplied. -1: a format this
 * reader does not know. */
static int rd_format(struct rd *r, uint8_t enc, uint64_t *v)
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
static int rd_ptr(struct rd *r, uint8_t enc, const struct tp_eh_src *s, uintptr_t *out)
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

static struct rd rd_at(const struct tp_eh_src *s, uintptr_t a)
{
    struct rd r = {(const uint8_t *)a, (const uint8_t *)s->hi, a < s->lo || a >= s->hi};
    return r;
}

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

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;
    int z; /* augmentation data sized: FDEs have it too */
    const uint8_t *insns, *insns_end;
};

struct fde {
    uintptr_t start, end;
    const uint8_t *insns, *insns_end;
};

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

static int read_cie(const struct tp_eh_src *s, uintptr_t a, struct cie *c)
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

long tp_eh_fde_count(const struct tp_eh_src *s)
{
    const uint8_t *t;
    long n;
    return table(s, &t, &n) < 0 ? -1 : n;
}

int tp_eh_fde_range(const struct tp_eh_src *s, long i, uintptr_t *start, uintptr_t *end)
{
    const uint8_t *t;
    long n;
    struct fde f;
    struct cie c;
    if (table(s, &t, &n) < 0 || i < 0 || i >= n ||
        read_fde(s, s->hdr + (uintptr_t)(intptr_t)entry(t, i, 1), &f, &c) < 0)
        return -1;
    *start = f.start;
    *end = f.end;
    return 0;
}

/* ---- playing the instructions out ---- */

enum { R_UNDEF, R_SAME, R_OFFSET, R_VAL_OFFSET, R_REGISTER, R_EXPR, R_VAL_EXPR };
enum { CFA_NONE, CFA_REG, CFA_EXPR, CFA_INVALID };

struct reg {
    int rule;
    uint64_t v;       /* the offset, or the register */
    const uint8_t *x; /* an expression's bytes */
    uint64_t xlen;
};

struct row {
    int cfa;
    uint64_t cfa_reg, cfa_off;
    const uint8_t *cfa_x;
    uint64_t cfa_xlen;
    struct reg ra, rbp;
};

#define STATES 16

struct play {
    struct row cur, init, saved[STATES];
    int nsaved;
    const struct cie *c;
    const struct tp_eh_src *s;
    uintptr_t loc, pc, row_end;
};

static struct reg *reg_of(struct row *w, uint64_t n)
{
    return n == TP_DWREG_RA ? &w->ra : n == TP_DWREG_RBP ? &w->rbp : NULL;
}

static void set_reg(struct row *w, uint64_t n, int rule, uint64_t v)
{
    struct reg *g = reg_of(w, n);
    if (g)
        *g = (struct reg){rule, v, NULL, 0};
}

/* An expression operand: its length and bytes, skipped over. */
static int expr_operand(struct rd *r, const uint8_t **x, uint64_t *len)
{
    *len = rd_uleb(r);
    if (r->bad || *len > (uint64_t)(r->end - r->p))
        return -1;
    *x = r->p;
    r->p += *len;
    return 0;
}

/* Long because it is one switch, a case per DW_CFA instruction.
 * One instruction that does not move the location. 0, or -1 when it is not one this reader
 * knows or the program is malformed (libdw then has its own say). */
static int play_one(struct play *p, struct rd *r, uint8_t op, int in_cie)
{
    struct row *w = &p->cur;
    uint64_t n, v;
    const uint8_t *x;
    int64_t sv;
    switch (op & 0xc0) {
    case DW_CFA_offset:
        set_reg(w, op & 0x3f, R_OFFSET, rd_uleb(r) * (uint64_t)p->c->data_align);
        return 0;
    case DW_CFA_restore: n = op & 0x3f; goto restore;
    }
    switch (op) {
    case DW_CFA_nop: return 0;
    case DW_CFA_def_cfa:
        n = rd_uleb(r);
        v = rd_uleb(r);
    def_cfa:
        w->cfa = CFA_REG;
        w->cfa_reg = n;
        w->cfa_off = v;
        return 0;
    case DW_CFA_def_cfa_sf:
        n = rd_uleb(r);
        v = (uint64_t)rd_sleb(r) * (uint64_t)p->c->data_align;
        goto def_cfa;
    case DW_CFA_def_cfa_register:
        n = rd_uleb(r);
        if (w->cfa != CFA_REG)
            w->cfa = CFA_INVALID;
        w->cfa_reg = n;
        return 0;
    case DW_CFA_def_cfa_offset:
        v = rd_uleb(r);
    def_cfa_offset:
        if (w->cfa != CFA_REG)
            w->cfa = CFA_INVALID;
        w->cfa_off = v;
        return 0;
    case DW_CFA_def_cfa_offset_sf:
        v = (uint64_t)rd_sleb(r) * (uint64_t)p->c->data_align;
        goto def_cfa_offset;
    case DW_CFA_def_cfa_expression:
        if (expr_operand(r, &w->cfa_x, &w->cfa_xlen) < 0)
            return -1;
        w->cfa = CFA_EXPR;
        return 0;
    case DW_CFA_undefined: set_reg(w, rd_uleb(r), R_UNDEF, 0); return 0;
    case DW_CFA_same_value: set_reg(w, rd_uleb(r), R_SAME, 0); return 0;
    case DW_CFA_offset_extended:
        n = rd_uleb(r);
        set_reg(w, n, R_OFFSET, rd_uleb(r) * (uint64_t)p->c->data_align);
        return 0;
    case DW_CFA_offset_extended_sf:
        n = rd_uleb(r);
        set_reg(w, n, R_OFFSET, (uint64_t)rd_sleb(r) * (uint64_t)p->c->data_align);
        return 0;
    case DW_CFA_GNU_negative_offset_extended:
        n = rd_uleb(r);
        sv = -(int64_t)rd_uleb(r);
        set_reg(w, n, R_OFFSET, (uint64_t)sv * (uint64_t)p->c->data_align);
        return 0;
    case DW_CFA_val_offset:
        n = rd_uleb(r);
        set_reg(w, n, R_VAL_OFFSET, rd_uleb(r) * (uint64_t)p->c->data_align);
        return 0;
    case DW_CFA_val_offset_sf:
        n = rd_uleb(r);
        set_reg(w, n, R_VAL_OFFSET, (uint64_t)rd_sleb(r) * (uint64_t)p->c->data_align);
        return 0;
    case DW_CFA_register:
        n = rd_uleb(r);
        set_reg(w, n, R_REGISTER, rd_uleb(r));
        return 0;
    case DW_CFA_expression:
    case DW_CFA_val_expression: {
        n = rd_uleb(r);
        uint64_t len;
        if (expr_operand(r, &x, &len) < 0)
            return -1;
        struct reg *g = reg_of(w, n);
        if (g)
            *g = (struct reg){op == DW_CFA_expression ? R_EXPR : R_VAL_EXPR, 0, x, len};
        return 0;
    }
    case DW_CFA_restore_extended:
        n = rd_uleb(r);
    restore:
        if (in_cie)
            return -1; /* libdw refuses it there */
        if (reg_of(w, n))
            *reg_of(w, n) = *reg_of(&p->init, n);
        return 0;
    case DW_CFA_remember_state:
        if (p->nsaved == STATES)
            return -1;
        p->saved[p->nsaved++] = *w;
        return 0;
    case DW_CFA_restore_state:
        if (p->nsaved == 0)
            return -1;
        *w = p->saved[--p->nsaved];
        return 0;
    case DW_CFA_GNU_args_size: rd_uleb(r); return 0;
    }
    return -1;
}

/* Play [i, end) out. 0: the row for p->pc is in p->cur (p->row_end set when a later row
 * begins); -1: not read here. */
static int play(struct play *p, const uint8_t *i, const uint8_t *end, int in_cie)
{
    struct rd r = {i, end, 0};
    while (r.p < r.end) {
        uint8_t op = *r.p++;
        uint64_t d;
        if ((op & 0xc0) == DW_CFA_advance_loc) {
            d = op & 0x3f;
        } else if (op == DW_CFA_def_cfa_offset) {
            /* the most frequent instruction of code without a frame pointer: here, not through
             * play_one, for the long functions whose every push and pop is a row */
            d = rd_uleb(&r);
            if (p->cur.cfa != CFA_REG)
                p->cur.cfa = CFA_INVALID;
            p->cur.cfa_off = d;
            continue;
        } else if (op == DW_CFA_advance_loc1) {
            d = rd_u(&r, 1);
        } else if (op == DW_CFA_advance_loc2) {
            d = rd_u(&r, 2);
        } else if (op == DW_CFA_advance_loc4) {
            d = rd_u(&r, 4);
        } else if (op == DW_CFA_set_loc) {
            uintptr_t to;
            if (in_cie || rd_ptr(&r, p->c->fde_enc, p->s, &to) < 0)
                return -1;
            d = to - p->loc;
        } else {
            if (play_one(p, &r, op, in_cie) < 0 || r.bad)
                return -1;
            continue;
        }
        if (r.bad || in_cie)
            return -1;
        p->loc += (uintptr_t)(d * (op == DW_CFA_set_loc ? 1 : p->c->code_align));
        if (p->pc < p->loc) {
            p->row_end = p->loc;
            return 0;
        }
    }
    return r.bad ? -1 : 0;
}

/* ---- stating the row as libdw does ---- */

static void state_reg(const struct reg *g, struct tp_eh_reg *o)
{
    memset(o, 0, sizeof *o);
    Dwarf_Op cfa = {.atom = DW_OP_call_frame_cfa};
    switch (g->rule) {
    case R_SAME: o->same = 1; return;
    case R_UNDEF: return;
    case R_OFFSET:
    case R_VAL_OFFSET:
        o->op[o->n++] = cfa;
        if (g->v)
            o->op[o->n++] = (Dwarf_Op){.atom = DW_OP_plus_uconst, .number = g->v};
        if (g->rule == R_VAL_OFFSET)
            o->op[o->n++] = (Dwarf_Op){.atom = DW_OP_stack_value};
        return;
    case R_REGISTER: o->op[o->n++] = (Dwarf_Op){.atom = DW_OP_regx, .number = g->v}; return;
    }
    /* An expression, the CFA pushed before it: libdw gives nothing for an empty one. Only
     * "CFA + k" could be taken: its one operation DW_OP_plus_uconst; any other is longer. */
    if (g->xlen == 0)
        return;
    struct rd r = {g->x, g->x + g->xlen, 0};
    if (g->rule == R_EXPR && rd_u(&r, 1) == DW_OP_plus_uconst) {
        uint64_t k = rd_uleb(&r);
        if (!r.bad && r.p == r.end) {
            o->op[0] = cfa;
            o->op[1] = (Dwarf_Op){.atom = DW_OP_plus_uconst, .number = k};
            o->n = 2;
            return;
        }
    }
    o->op[0] = cfa;
    o->n = 3;
}

static void state(const struct row *w, struct tp_eh_frame *out)
{
    memset(out, 0, sizeof *out);
    if (w->cfa == CFA_REG) {
        out->cfa[0] = (Dwarf_Op){.atom = DW_OP_bregx, .number = w->cfa_reg, .number2 = w->cfa_off};
        out->ncfa = 1;
    } else if (w->cfa == CFA_EXPR) {
        out->ncfa = tp_eh_cfa_ops(w->cfa_x, w->cfa_xlen, out->cfa);
    }
    state_reg(&w->ra, &out->ra);
    state_reg(&w->rbp, &out->rbp);
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
    struct play p = {.c = &c, .s = s, .loc = f.start, .pc = pc, .row_end = f.end};
    p.cur.ra.rule = p.cur.rbp.rule = R_SAME; /* the ABI's initial rules */
    if (play(&p, c.insns, c.insns_end, 1) < 0)
        return TP_EH_ASK_DW;
    p.init = p.cur;
    p.nsaved = 0;
    if (play(&p, f.insns, f.insns_end, 0) < 0)
        return TP_EH_ASK_DW;
    state(&p.cur, out);
    if (row_end)
        *row_end = p.row_end;
    return TP_EH_FOUND;
}
