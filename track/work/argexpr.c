/* Computed parameter values at the enter hook (see argexpr.h). */
#include "track/work/argexpr.h"

#include <dwarf.h>
#include <string.h>

#include "track/unwind/unwind.h"

enum {
    X_REG = 1, /* push regs[reg] + arg */
    X_CONST,   /* push arg */
    X_LOAD,    /* pop an address, push the size bytes there (zero-extended) */
    X_ADD,
    X_SUB,
    X_MUL,
    X_AND,
    X_OR,
    X_XOR,
    X_SHL,
    X_SHR,
    X_SHRA,
    X_NEG,
    X_NOT,
    X_DUP,
    X_DROP,
    X_SWAP,
    X_OVER,
};

#define POOL 256

static struct tp_argexpr pool[POOL];
static int used;

/* Stack effect of each instruction: what it pops, what it pushes. */
static void effect(int op, int *pop, int *push)
{
    *pop = 0;
    *push = 1;
    if (op == X_REG || op == X_CONST)
        return;
    if (op == X_LOAD || op == X_NEG || op == X_NOT) {
        *pop = 1;
    } else if (op == X_DUP) {
        *pop = 1, *push = 2;
    } else if (op == X_DROP) {
        *pop = 1, *push = 0;
    } else if (op == X_SWAP) {
        *pop = 2, *push = 2;
    } else if (op == X_OVER) {
        *pop = 2, *push = 3;
    } else {
        *pop = 2; /* the binary operators */
    }
}

static int binary_op(unsigned atom)
{
    switch (atom) {
    case DW_OP_plus: return X_ADD;
    case DW_OP_minus: return X_SUB;
    case DW_OP_mul: return X_MUL;
    case DW_OP_and: return X_AND;
    case DW_OP_or: return X_OR;
    case DW_OP_xor: return X_XOR;
    case DW_OP_shl: return X_SHL;
    case DW_OP_shr: return X_SHR;
    case DW_OP_shra: return X_SHRA;
    case DW_OP_neg: return X_NEG;
    case DW_OP_not: return X_NOT;
    case DW_OP_dup: return X_DUP;
    case DW_OP_drop: return X_DROP;
    case DW_OP_swap: return X_SWAP;
    case DW_OP_over: return X_OVER;
    default: return 0;
    }
}

/* A register the enter hook saves as the function had it at the hook's call: not rax, r10 or
 * r11 (its fast path uses them), and no vector register. */
static int saved(Dwarf_Word r)
{
    return r < 16 && r != 0 && r != 10 && r != 11;
}

/* A caller's register r (+ off) at its call, as the hook finds it: its rsp is the CFA; a
 * callee-saved register is still in r or in the slot the function saved it to. */
static const char *caller_reg(Dwarf_Word r, int64_t off, const struct tp_xctx *c,
                              struct tp_argexpr *x)
{
    struct tp_xins *in = &x->ins[x->n];
    if (!c->cfa_ok)
        return "no call frame information at the enter hook's call";
    if (r == TP_DWREG_RSP) {
        *in = (struct tp_xins){X_REG, c->cfa_reg, 0, c->cfa_off + off};
    } else if (r < 16 && c->caller_how[r] == 1 && saved(r)) {
        *in = (struct tp_xins){X_REG, (uint8_t)r, 0, off};
    } else if (r < 16 && c->caller_how[r] == 2) {
        in[0] = (struct tp_xins){X_REG, c->cfa_reg, 0, c->cfa_off + c->caller_at[r]};
        in[1] = (struct tp_xins){X_LOAD, 0, 8, 0};
        in[2] = (struct tp_xins){X_CONST, 0, 0, off};
        in[3] = (struct tp_xins){X_ADD, 0, 0, 0};
        x->n += 3;
    } else {
        return "its caller passes it from a register the call does not preserve";
    }
    x->n++;
    return NULL;
}

/* One DWARF operation as instructions appended to x. NULL, or why it cannot be run at the hook. */
static const char *one(const Dwarf_Op *o, const struct tp_xctx *c, struct tp_argexpr *x)
{
    unsigned atom = o->atom;
    struct tp_xins *in = &x->ins[x->n], *prev = x->n ? &x->ins[x->n - 1] : NULL;
    if (x->n + 4 > TP_ARGEXPR_INS)
        return "its location is too long a computation";
    memset(in, 0, 4 * sizeof *in);
    if ((atom >= DW_OP_breg0 && atom <= DW_OP_breg15) || atom == DW_OP_bregx) {
        Dwarf_Word r = atom == DW_OP_bregx ? o->number : atom - DW_OP_breg0;
        int64_t off = (int64_t)(atom == DW_OP_bregx ? o->number2 : o->number);
        if (c->caller)
            return caller_reg(r, off, c, x);
        if (!saved(r))
            return "it is computed from a register the hook does not save";
        *in = (struct tp_xins){X_REG, (uint8_t)r, 0, off};
    } else if ((atom == DW_OP_fbreg || atom == DW_OP_call_frame_cfa) && c->caller) {
        return "its caller passes it from the caller's frame base (not supported)";
    } else if (atom == DW_OP_fbreg || atom == DW_OP_call_frame_cfa) {
        int64_t off = atom == DW_OP_fbreg ? (int64_t)o->number : 0;
        if (atom == DW_OP_fbreg && !c->fb_ok)
            return "its function's frame base is not understood";
        if (atom == DW_OP_fbreg && c->fb_reg != 255) {
            *in = (struct tp_xins){X_REG, c->fb_reg, 0, c->fb_off + off};
        } else if (!c->cfa_ok) {
            return "no call frame information at the enter hook's call";
        } else {
            off += atom == DW_OP_fbreg ? c->fb_off : 0;
            *in = (struct tp_xins){X_REG, c->cfa_reg, 0, c->cfa_off + off};
        }
    } else if (atom == DW_OP_deref || atom == DW_OP_deref_size) {
        /* only a slot at a register + constant, as a one-register location reads it */
        if (!prev || prev->op != X_REG)
            return "it is read from a computed address (not supported)";
        Dwarf_Word size = atom == DW_OP_deref ? 8 : o->number;
        if (size != 1 && size != 2 && size != 4 && size != 8)
            return "it is read with an odd size (not supported)";
        *in = (struct tp_xins){X_LOAD, 0, (uint8_t)size, 0};
    } else if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
        *in = (struct tp_xins){X_CONST, 0, 0, atom - DW_OP_lit0};
    } else if (atom == DW_OP_const1u || atom == DW_OP_const2u || atom == DW_OP_const4u ||
               atom == DW_OP_const8u || atom == DW_OP_constu || atom == DW_OP_const1s ||
               atom == DW_OP_const2s || atom == DW_OP_const4s || atom == DW_OP_const8s ||
               atom == DW_OP_consts) {
        *in = (struct tp_xins){X_CONST, 0, 0, (int64_t)o->number};
    } else if (atom == DW_OP_plus_uconst) {
        in[0] = (struct tp_xins){X_CONST, 0, 0, (int64_t)o->number};
        in[1] = (struct tp_xins){X_ADD, 0, 0, 0};
        x->n++;
    } else if (binary_op(atom)) {
        *in = (struct tp_xins){(uint8_t)binary_op(atom), 0, 0, 0};
    } else if (atom == DW_OP_entry_value || atom == DW_OP_GNU_entry_value) {
        return "it is computed from a register's value at entry (DW_OP_entry_value), which "
               "the prologue changed before the hook";
    } else if (atom == DW_OP_GNU_parameter_ref) {
        return "it is computed from a value its callers pass (DW_OP_GNU_parameter_ref; call "
               "sites are not read)";
    } else {
        return "its location is computed with an operation tprof does not run";
    }
    x->n++;
    return NULL;
}

int tp_argexpr_compile(const Dwarf_Op *e, size_t n, const struct tp_xctx *c, const char **why)
{
    int value = n > 0 && e[n - 1].atom == DW_OP_stack_value;
    if (!c->caller && (n < 2 || !value)) {
        *why = "its location is a computed address (not supported)";
        return -1;
    }
    if (used >= POOL) {
        *why = "too many computed locations in the process (256)";
        return -1;
    }
    struct tp_argexpr *x = &pool[used];
    memset(x, 0, sizeof *x);
    for (size_t i = 0; i + (size_t)value < n; i++)
        if ((*why = one(&e[i], c, x)) != NULL)
            return -1;
    /* the stack never under- or overflows when the program runs: checked here, once */
    int depth = 0;
    for (int i = 0; i < x->n; i++) {
        int pop, push;
        effect(x->ins[i].op, &pop, &push);
        if (depth < pop || depth - pop + push > TP_ARGEXPR_DEPTH) {
            *why = "its location is a malformed computation";
            return -1;
        }
        depth += push - pop;
    }
    if (depth != 1) {
        *why = "its location is a malformed computation";
        return -1;
    }
    return used++;
}

/* A shift as DWARF means it: by 64 or more, every bit is shifted out. */
static uint64_t shift(int op, uint64_t a, uint64_t b)
{
    if (b >= 64)
        return op == X_SHRA && (int64_t)a < 0 ? ~0ull : 0;
    if (op == X_SHL)
        return a << b;
    if (op == X_SHR)
        return a >> b;
    return (uint64_t)((int64_t)a >> b);
}

uint64_t tp_argexpr_run(int64_t idx, const uint64_t *regs)
{
    const struct tp_argexpr *x = &pool[idx];
    uint64_t st[TP_ARGEXPR_DEPTH + 1], a, b;
    int sp = 0;
    for (int i = 0; i < x->n; i++) {
        const struct tp_xins *in = &x->ins[i];
        switch (in->op) {
        case X_REG: st[sp++] = regs[in->reg] + (uint64_t)in->arg; break;
        case X_CONST: st[sp++] = (uint64_t)in->arg; break;
        case X_LOAD:
            a = 0;
            memcpy(&a, (const void *)st[sp - 1], in->size); /* little-endian: the low bytes */
            st[sp - 1] = a;
            break;
        case X_NEG: st[sp - 1] = -st[sp - 1]; break;
        case X_NOT: st[sp - 1] = ~st[sp - 1]; break;
        case X_DUP: st[sp] = st[sp - 1], sp++; break;
        case X_DROP: sp--; break;
        case X_SWAP: a = st[sp - 1], st[sp - 1] = st[sp - 2], st[sp - 2] = a; break;
        case X_OVER: st[sp] = st[sp - 2], sp++; break;
        default:
            b = st[--sp];
            a = st[sp - 1];
            switch (in->op) {
            case X_ADD: a += b; break;
            case X_SUB: a -= b; break;
            case X_MUL: a *= b; break;
            case X_AND: a &= b; break;
            case X_OR: a |= b; break;
            case X_XOR: a ^= b; break;
            default: a = shift(in->op, a, b); break;
            }
            st[sp - 1] = a;
        }
    }
    return st[0];
}
