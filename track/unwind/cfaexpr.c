/* CFA expressions (see track/unwind/unwind.h): kept in a small table, normalised so that evaluation is a
 * loop over a fixed stack with no checks but rbp's, since every check of depth and register is
 * made once, when the expression is kept. */
#include "track/unwind/unwind.h"

#include <dwarf.h>

/* One operation, normalised: DW_OP_bregN and DW_OP_bregx become BREG with reg, DW_OP_litN and
 * the constants become CONST; the rest keep their opcode. */
enum { X_BREG = 0x100, X_CONST };
struct xop {
    uint16_t op;
    uint8_t reg;
    uint64_t v;
};
#define XOPS_MAX 12
#define XSTACK   8
struct expr {
    uint8_t n;
    struct xop op[XOPS_MAX];
};
/* Written under the rule table's lock before the rule that names it is published; never changed
 * after. PLT stubs of every module share one or two expressions. */
#define EXPRS_MAX 32
static struct expr exprs[EXPRS_MAX];
static int nexprs;

static int binary(int atom)
{
    switch (atom) {
    case DW_OP_plus:
    case DW_OP_minus:
    case DW_OP_mul:
    case DW_OP_and:
    case DW_OP_or:
    case DW_OP_xor:
    case DW_OP_shl:
    case DW_OP_shr:
    case DW_OP_shra:
    case DW_OP_ge:
    case DW_OP_gt:
    case DW_OP_le:
    case DW_OP_lt:
    case DW_OP_eq:
    case DW_OP_ne: return 1;
    }
    return 0;
}

static int same_expr(const struct expr *a, const struct expr *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->op[i].op != b->op[i].op || a->op[i].reg != b->op[i].reg || a->op[i].v != b->op[i].v)
            return 0;
    return 1;
}

/* The expression's index in exprs, or -1 when it uses what the walk cannot evaluate. The stack
 * depth is checked here, so that evaluation needs no checks but rbp's. */
int tp_cfa_expr_intern(const Dwarf_Op *ops, size_t n)
{
    struct expr e = {0};
    int depth = 0;
    if (n == 0 || n > XOPS_MAX)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned a = ops[i].atom;
        struct xop x = {(uint16_t)a, 0, ops[i].number};
        if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
            x = (struct xop){X_BREG, (uint8_t)(a - DW_OP_breg0), ops[i].number};
        } else if (a == DW_OP_bregx) {
            if (ops[i].number > 31)
                return -1;
            x = (struct xop){X_BREG, (uint8_t)ops[i].number, ops[i].number2};
        } else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
            x = (struct xop){X_CONST, 0, a - DW_OP_lit0};
        } else if (a == DW_OP_const1u || a == DW_OP_const1s || a == DW_OP_const2u ||
                   a == DW_OP_const2s || a == DW_OP_const4u || a == DW_OP_const4s ||
                   a == DW_OP_const8u || a == DW_OP_const8s || a == DW_OP_constu ||
                   a == DW_OP_consts) {
            x = (struct xop){X_CONST, 0, ops[i].number}; /* libdw sign-extends the signed ones */
        } else if (a == DW_OP_plus_uconst || a == DW_OP_neg || a == DW_OP_not) {
            if (depth < 1)
                return -1;
            depth--; /* pops one, pushes one: counted below */
        } else if (binary((int)a)) {
            if (depth < 2)
                return -1;
            depth -= 2;
        } else {
            return -1; /* a memory read, a branch, another register's value... */
        }
        if (x.op == X_BREG && x.reg != TP_DWREG_RSP && x.reg != TP_DWREG_RBP &&
            x.reg != TP_DWREG_RA)
            return -1;
        if (++depth > XSTACK)
            return -1;
        e.op[e.n++] = x;
    }
    if (depth != 1)
        return -1;
    for (int i = 0; i < nexprs; i++)
        if (same_expr(&exprs[i], &e))
            return i;
    if (nexprs == EXPRS_MAX)
        return -1;
    exprs[nexprs] = e;
    return nexprs++;
}

uintptr_t tp_cfa_expr_eval(int x, uintptr_t rsp, uintptr_t rbp, int rbp_known, uintptr_t rip)
{
    const struct expr *e = &exprs[x];
    uint64_t s[XSTACK];
    int d = 0;
    for (int i = 0; i < e->n; i++) {
        const struct xop *x = &e->op[i];
        uint64_t a, b;
        switch (x->op) {
        case X_BREG:
            if (x->reg == TP_DWREG_RBP && !rbp_known)
                return 0;
            a = x->reg == TP_DWREG_RSP ? rsp : x->reg == TP_DWREG_RBP ? rbp : rip;
            s[d++] = a + x->v;
            continue;
        case X_CONST: s[d++] = x->v; continue;
        case DW_OP_plus_uconst: s[d - 1] += x->v; continue;
        case DW_OP_neg: s[d - 1] = -s[d - 1]; continue;
        case DW_OP_not: s[d - 1] = ~s[d - 1]; continue;
        }
        b = s[--d];
        a = s[d - 1];
        switch (x->op) {
        case DW_OP_plus: a += b; break;
        case DW_OP_minus: a -= b; break;
        case DW_OP_mul: a *= b; break;
        case DW_OP_and: a &= b; break;
        case DW_OP_or: a |= b; break;
        case DW_OP_xor: a ^= b; break;
        case DW_OP_shl: a = b < 64 ? a << b : 0; break;
        case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
        case DW_OP_shra: a = (uint64_t)((int64_t)a >> (b < 64 ? b : 63)); break;
        /* comparisons are signed in DWARF */
        case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
        case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
        case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
        case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
        case DW_OP_eq: a = a == b; break;
        case DW_OP_ne: a = a != b; break;
        }
        s[d - 1] = a;
    }
    return (uintptr_t)s[0];
}
