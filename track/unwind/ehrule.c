/* From a frame's rules as libdw states them to the stack walk's rule (see ehrule.h). */
#include "track/unwind/ehrule.h"

#include <dwarf.h>
#include <string.h>

#include "track/unwind/unwind.h"
#include "track/sym/sym.h"
#include "track/unwind/ehread.h"

/* A CFA expression's operations, those cfaexpr.c may keep; anything else gives no operations
 * (libdw's list would be refused by tp_cfa_expr_intern all the same). */
size_t tp_eh_cfa_ops(const uint8_t *x, uint64_t len, Dwarf_Op *o)
{
    struct rd r = {x, x + len, 0};
    size_t n = 0;
    while (r.p < r.end) {
        if (n == TP_EH_CFA_OPS)
            return 0;
        uint8_t a = (uint8_t)rd_u(&r, 1);
        Dwarf_Op op = {.atom = a};
        if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
            op.number = (uint64_t)rd_sleb(&r);
        } else if (a == DW_OP_bregx) {
            op.number = rd_uleb(&r);
            op.number2 = (uint64_t)rd_sleb(&r);
        } else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
        } else if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u ||
                   a == DW_OP_const8u) {
            int k = a == DW_OP_const1u ? 1 : a == DW_OP_const2u ? 2 : a == DW_OP_const4u ? 4 : 8;
            op.number = rd_u(&r, k);
        } else if (a == DW_OP_const1s) {
            op.number = (uint64_t)(int64_t)(int8_t)rd_u(&r, 1);
        } else if (a == DW_OP_const2s) {
            op.number = (uint64_t)(int64_t)(int16_t)rd_u(&r, 2);
        } else if (a == DW_OP_const4s) {
            op.number = (uint64_t)(int64_t)(int32_t)rd_u(&r, 4);
        } else if (a == DW_OP_const8s) {
            op.number = rd_u(&r, 8);
        } else if (a == DW_OP_constu || a == DW_OP_plus_uconst) {
            op.number = rd_uleb(&r);
        } else if (a == DW_OP_consts) {
            op.number = (uint64_t)rd_sleb(&r);
        } else if (!(a == DW_OP_neg || a == DW_OP_not || a == DW_OP_plus || a == DW_OP_minus ||
                     a == DW_OP_mul || a == DW_OP_and || a == DW_OP_or || a == DW_OP_xor ||
                     (a >= DW_OP_shl && a <= DW_OP_shra) || (a >= DW_OP_eq && a <= DW_OP_ne))) {
            return 0;
        }
        if (r.bad)
            return 0;
        o[n++] = op;
    }
    return n;
}

/* A register's rule from libdw; one it cannot give is stated as a long expression (refused). */
static void dw_reg(Dwarf_Frame *fr, int reg, struct tp_eh_reg *o)
{
    Dwarf_Op mem[3], *ops;
    size_t n;
    memset(o, 0, sizeof *o);
    if (tp_dw.dwarf_frame_register(fr, reg, mem, &ops, &n) != 0) {
        o->n = 3;
        return;
    }
    if (n == 0) {
        o->same = ops == NULL;
        return;
    }
    o->n = n < 3 ? n : 3;
    memcpy(o->op, ops, o->n * sizeof *ops);
}

void tp_eh_frame_of_dw(Dwarf_Frame *fr, struct tp_eh_frame *out)
{
    Dwarf_Op *ops;
    size_t n;
    memset(out, 0, sizeof *out);
    if (tp_dw.dwarf_frame_cfa(fr, &ops, &n) == 0 && n <= TP_EH_CFA_OPS) {
        memcpy(out->cfa, ops, n * sizeof *ops);
        out->ncfa = n;
    }
    dw_reg(fr, TP_DWREG_RA, &out->ra);
    dw_reg(fr, TP_DWREG_RBP, &out->rbp);
}

/* ---- the walk's rule ---- */

/* "CFA + k" as libdw states a saved register's place: call_frame_cfa, then plus_uconst k (k
 * wrapped to 64 bits when negative), or nothing more for k = 0. */
static int cfa_offset(const struct tp_eh_reg *g, int64_t *off)
{
    if (g->n == 1 && g->op[0].atom == DW_OP_call_frame_cfa) {
        *off = 0;
        return 1;
    }
    if (g->n == 2 && g->op[0].atom == DW_OP_call_frame_cfa && g->op[1].atom == DW_OP_plus_uconst) {
        *off = (int64_t)g->op[1].number;
        return 1;
    }
    return 0;
}

struct tp_cfa_rule tp_cfa_rule_from(const struct tp_eh_frame *f)
{
    struct tp_cfa_rule no = {0, 0, 0, TP_CFA_NO, 0};
    int64_t ra_off = 0, rbp_off = 0, cfa_off;
    uint32_t flags;
    const Dwarf_Op *c = f->cfa;
    if (f->ncfa == 1 && c[0].atom == DW_OP_bregx &&
        (c[0].number == TP_DWREG_RSP || c[0].number == TP_DWREG_RBP)) {
        cfa_off = (int64_t)c[0].number2;
        if (cfa_off < INT32_MIN || cfa_off > INT32_MAX)
            return no;
        flags = c[0].number == TP_DWREG_RBP ? TP_CFA_ON_RBP : 0;
    } else {
        int x = tp_cfa_expr_intern(c, f->ncfa);
        if (x < 0)
            return no;
        cfa_off = x;
        flags = TP_CFA_EXPR;
    }
    if (f->ra.n == 0 && !f->ra.same)
        flags |= TP_CFA_LAST; /* return address undefined: _start, a thread's start */
    else if (!cfa_offset(&f->ra, &ra_off) || ra_off < INT16_MIN || ra_off > -8)
        return no;
    if (f->rbp.n == 0 && f->rbp.same) {
        /* same value: the caller's rbp is this frame's */
    } else if (f->rbp.n == 0) {
        flags |= TP_CFA_RBP_LOST;
    } else if (cfa_offset(&f->rbp, &rbp_off) && rbp_off >= INT16_MIN && rbp_off <= -8) {
        flags |= TP_CFA_RBP_SAVED;
    } else {
        return no;
    }
    int64_t need = -ra_off;
    if ((flags & TP_CFA_RBP_SAVED) && -rbp_off > need)
        need = -rbp_off;
    if (need < 8)
        need = 8; /* the return address, at least, is in the frame */
    return (struct tp_cfa_rule){(int32_t)cfa_off, (int16_t)ra_off, (int16_t)rbp_off,
                                (uint16_t)flags, (uint16_t)need};
}
