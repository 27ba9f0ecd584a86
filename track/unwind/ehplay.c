/* Playing call frame instructions out (see ehplay.h). */
#include "track/unwind/ehplay.h"

#include <dwarf.h>
#include <string.h>

#include "track/unwind/unwind.h"
#include "track/unwind/ehread.h"
#include "track/unwind/ehrule.h"
#include "track/rawalloc.h"

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

/* ---- a long FDE's rows, kept ---- */

/* A row in 20 bytes: from lo (bytes past the FDE's start) on. Rows with an expression or an
 * offset past 32 bits are not kept (the FDE is then played out for each address). */
struct crow {
    uint32_t lo;
    uint8_t cfa, ra, rbp, cfa_reg;
    int32_t cfa_off, ra_v, rbp_v;
};

struct rows {
    uintptr_t start;
    struct crow *v;
    uint32_t n, cap;
};

static int fits(uint64_t v)
{
    return (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX;
}

static int compact(const struct row *w, uintptr_t lo, struct crow *o)
{
    if (w->cfa == CFA_EXPR || w->ra.rule >= R_EXPR || w->rbp.rule >= R_EXPR || w->cfa_reg > 255 ||
        !fits(w->cfa_off) || !fits(w->ra.v) || !fits(w->rbp.v) || lo > UINT32_MAX)
        return -1;
    *o = (struct crow){(uint32_t)lo,         (uint8_t)w->cfa,     (uint8_t)w->ra.rule,
                       (uint8_t)w->rbp.rule, (uint8_t)w->cfa_reg, (int32_t)w->cfa_off,
                       (int32_t)w->ra.v,     (int32_t)w->rbp.v};
    return 0;
}

static void expand(const struct crow *c, struct row *w)
{
    memset(w, 0, sizeof *w);
    w->cfa = c->cfa;
    w->cfa_reg = c->cfa_reg;
    w->cfa_off = (uint64_t)(int64_t)c->cfa_off;
    w->ra.rule = c->ra;
    w->ra.v = (uint64_t)(int64_t)c->ra_v;
    w->rbp.rule = c->rbp;
    w->rbp.v = (uint64_t)(int64_t)c->rbp_v;
}

/* The row in force from p->loc to next, kept (the same as the last one kept: merged into it). */
static int keep_row(struct play *p, uintptr_t next)
{
    struct rows *k = p->rows;
    struct crow c;
    if (next < p->loc)
        return -1; /* DW_CFA_set_loc backwards: rows out of order */
    if (next == p->loc)
        return 0;
    if (compact(&p->cur, p->loc - k->start, &c) < 0)
        return -1;
    p->loc = next;
    if (k->n && !memcmp((const char *)&k->v[k->n - 1] + 4, (const char *)&c + 4, sizeof c - 4))
        return 0;
    if (k->n == k->cap) {
        uint32_t cap = k->cap ? 2 * k->cap : 64;
        struct crow *v = tp_realloc(k->v, cap * sizeof *v);
        if (!v)
            return -1;
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = c;
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

int tp_eh_play(struct play *p, const uint8_t *i, const uint8_t *end, int in_cie)
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
        uintptr_t next = p->loc + (uintptr_t)(d * (op == DW_CFA_set_loc ? 1 : p->c->code_align));
        if (p->rows) {
            if (keep_row(p, next) < 0)
                return -1;
            continue;
        }
        p->loc = next;
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
    o->n = 0;
    o->same = 0;
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

void tp_eh_state(const struct row *w, struct tp_eh_frame *out)
{
    out->ncfa = 0; /* the operations past ncfa (and past a register's n) are never read */
    if (w->cfa == CFA_REG) {
        out->cfa[0] = (Dwarf_Op){.atom = DW_OP_bregx, .number = w->cfa_reg, .number2 = w->cfa_off};
        out->ncfa = 1;
    } else if (w->cfa == CFA_EXPR) {
        out->ncfa = tp_eh_cfa_ops(w->cfa_x, w->cfa_xlen, out->cfa);
    }
    state_reg(&w->ra, &out->ra);
    state_reg(&w->rbp, &out->rbp);
}

/* The long FDEs whose rows are kept, a few, the least recently used given up for a new one. A
 * slot whose rows could not be kept says so (v NULL), so that they are not played out again. */
#define KEPT 4
static struct kept {
    const uint8_t *insns; /* the FDE, by its instructions' place in the module as mapped */
    uintptr_t start, end;
    struct rows rows;
    uint64_t used;
} kept[KEPT];
static uint64_t uses;

static struct kept *slot_for(const struct fde *f)
{
    struct kept *old = &kept[0];
    for (int i = 0; i < KEPT; i++) {
        if (kept[i].insns == f->insns && kept[i].start == f->start && kept[i].end == f->end)
            return &kept[i];
        if (kept[i].used < old->used)
            old = &kept[i];
    }
    tp_free(old->rows.v);
    memset(old, 0, sizeof *old);
    old->insns = f->insns;
    old->start = f->start;
    old->end = f->end;
    return old;
}

static void keep_all(const struct tp_eh_src *s, const struct fde *f, const struct cie *c,
                     struct kept *k)
{
    struct play p;
    tp_eh_play_init(&p, c, s, f->start, f->start, f->end);
    k->rows.start = f->start;
    if (tp_eh_play(&p, c->insns, c->insns_end, 1) == 0) {
        p.init = p.cur;
        p.rows = &k->rows;
        if (tp_eh_play(&p, f->insns, f->insns_end, 0) == 0 &&
            (p.loc >= f->end || keep_row(&p, f->end) == 0))
            return;
    }
    tp_free(k->rows.v);
    k->rows.v = NULL;
    k->rows.n = 0;
}

int tp_eh_long_fde(const struct tp_eh_src *s, const struct fde *f, const struct cie *c,
                   uintptr_t pc, struct tp_eh_frame *out, uintptr_t *row_end)
{
    struct kept *k = slot_for(f);
    if (!k->used)
        keep_all(s, f, c, k);
    k->used = ++uses;
    const struct rows *r = &k->rows;
    if (!r->n)
        return -1;
    uint32_t lo = 0, hi = r->n, at = (uint32_t)(pc - f->start);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].lo <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    struct row w;
    expand(&r->v[lo - 1], &w);
    tp_eh_state(&w, out);
    if (row_end)
        *row_end = lo < r->n ? f->start + r->v[lo].lo : f->end;
    return 0;
}

void tp_eh_rows_forget(void)
{
    for (int i = 0; i < KEPT; i++)
        tp_free(kept[i].rows.v);
    memset(kept, 0, sizeof kept);
}
