/* A parameter's value from its callers' call sites (see argcall.h). */
#include "track/work/argcall.h"

#include <dwarf.h>
#include <string.h>

#include "track/unwind/unwind.h"
#include "track/sym/sym.h"

struct callers {
    uint8_t cfa_reg;
    int64_t cfa_off;
    int n;
    uint64_t ret[TP_ARGCALL_SITES]; /* the caller's return address (run-time) */
    int prog[TP_ARGCALL_SITES];     /* its value, an argexpr program */
};

#define POOL 64

static struct callers pool[POOL];
static int used;

/* Where the function's call frame information at pc puts each callee-saved register of its
 * caller: still in place, or at CFA + k. */
static int caller_regs(Dwfl_Module *m, uintptr_t pc, struct tp_xctx *c)
{
    Dwarf_Frame *fr = tp_dw_frame_at(m, pc);
    if (!fr)
        return -1;
    static const int keep[] = {3, 6, 12, 13, 14, 15}; /* rbx, rbp, r12-r15 */
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        int r = keep[i];
        Dwarf_Op mem[3], *ops;
        size_t n;
        if (tp_dw.dwarf_frame_register(fr, r, mem, &ops, &n) != 0)
            continue;
        if (n == 0 && ops == NULL) {
            c->caller_how[r] = 1; /* same value */
        } else if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
            c->caller_how[r] = 2;
            c->caller_at[r] = 0;
        } else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
                   ops[1].atom == DW_OP_plus_uconst) {
            c->caller_how[r] = 2;
            c->caller_at[r] = (int64_t)ops[1].number; /* wrapped to 64 bits when negative */
        }
    }
    tp_dw.free(fr);
    return 0;
}

/* The value a call site's parameter DIE gives for register reg: its program, or -1. */
static int site_value(Dwarf_Die *site, int reg, const struct tp_xctx *c, const char **why)
{
    Dwarf_Die p;
    if (tp_dw.dwarf_child(site, &p) != 0)
        return -1;
    do {
        int tag = tp_dw.dwarf_tag(&p);
        Dwarf_Attribute a, v;
        Dwarf_Op *e;
        size_t n;
        if ((tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter) ||
            !tp_dw.dwarf_attr(&p, DW_AT_location, &a) || tp_dw.dwarf_getlocation(&a, &e, &n) != 0 ||
            n != 1 || e[0].atom != (unsigned)(DW_OP_reg0 + reg))
            continue;
        if ((!tp_dw.dwarf_attr(&p, DW_AT_call_value, &v) &&
             !tp_dw.dwarf_attr(&p, DW_AT_GNU_call_site_value, &v)) ||
            tp_dw.dwarf_getlocation(&v, &e, &n) != 0 || n == 0)
            return -1;
        return tp_argexpr_compile(e, n, c, why);
    } while (tp_dw.dwarf_siblingof(&p, &p) == 0);
    return -1;
}

/* Whether a call site calls the function whose DIE offsets are fn[0..1]. */
static int calls(Dwarf_Die *site, const Dwarf_Off *fn)
{
    Dwarf_Attribute a;
    Dwarf_Die t;
    if ((!tp_dw.dwarf_attr(site, DW_AT_call_origin, &a) &&
         !tp_dw.dwarf_attr(site, DW_AT_abstract_origin, &a)) ||
        !tp_dw.dwarf_formref_die(&a, &t))
        return 0;
    Dwarf_Off o = tp_dw.dwarf_dieoffset(&t);
    return o == fn[0] || o == fn[1];
}

/* One call site of the function: its return address and value added to k. */
static void add_site(Dwarf_Die *site, Dwarf_Addr bias, int reg, const struct tp_xctx *c,
                     struct callers *k, const char **why)
{
    Dwarf_Attribute a;
    Dwarf_Addr ret;
    /* a tail call leaves no frame of the caller's: its registers are not there to read, and the
     * return address is the caller's caller's */
    if (tp_dw.dwarf_attr(site, DW_AT_call_tail_call, &a) ||
        tp_dw.dwarf_attr(site, DW_AT_GNU_tail_call, &a))
        return;
    if ((!tp_dw.dwarf_attr(site, DW_AT_call_return_pc, &a) &&
         !tp_dw.dwarf_attr(site, DW_AT_low_pc, &a)) ||
        tp_dw.dwarf_formaddr(&a, &ret) != 0 || k->n >= TP_ARGCALL_SITES)
        return;
    int x = site_value(site, reg, c, why);
    if (x < 0)
        return;
    k->ret[k->n] = ret + bias;
    k->prog[k->n++] = x;
}

/* Where call sites can be: code, and the namespaces holding it (not types or variables). */
static int holds_code(int tag)
{
    return tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
           tag == DW_TAG_inlined_subroutine || tag == DW_TAG_namespace;
}

#define MAX_DIES 4000000 /* a bound on the hook's time in a huge module's debug information */

/* Every call site of the function in the module: a walk over its DIEs, with a stack of its own
 * (call sites sit in lexical blocks and inlined copies, at any depth). */
static void walk(Dwfl_Module *m, const Dwarf_Off *fn, int reg, const struct tp_xctx *c,
                 struct callers *k, const char **why)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = NULL, stack[64];
    long seen = 0;
    while ((cu = tp_dw.dwfl_module_nextcu(m, cu, &bias)) != NULL) {
        int d = 0;
        if (tp_dw.dwarf_child(cu, &stack[0]) != 0)
            continue;
        for (;;) {
            Dwarf_Die *it = &stack[d];
            int tag = tp_dw.dwarf_tag(it);
            if (++seen > MAX_DIES) {
                *why = "its callers were not all searched (over 4 million debug entries)";
                return;
            }
            if ((tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) && calls(it, fn))
                add_site(it, bias, reg, c, k, why);
            if (d + 1 < 64 && holds_code(tag) && tp_dw.dwarf_child(it, &stack[d + 1]) == 0) {
                d++;
                continue;
            }
            while (d >= 0 && tp_dw.dwarf_siblingof(&stack[d], &stack[d]) != 0)
                d--;
            if (d < 0)
                break;
        }
    }
}

int tp_argcall_resolve(Dwfl_Module *m, Dwarf_Die *fn, int reg, uintptr_t pc,
                       const struct tp_xctx *c0, const char **why)
{
    struct tp_xctx c = *c0;
    Dwarf_Attribute a;
    Dwarf_Die ab;
    Dwarf_Off offs[2] = {tp_dw.dwarf_dieoffset(fn), tp_dw.dwarf_dieoffset(fn)};
    if (tp_dw.dwarf_formref_die(tp_dw.dwarf_attr(fn, DW_AT_abstract_origin, &a), &ab))
        offs[1] = tp_dw.dwarf_dieoffset(&ab);
    *why = "no caller's call site gives it (DW_AT_call_value)";
    if (used >= POOL) {
        *why = "too many parameters read from their callers in the process (64)";
        return -1;
    }
    if (!c.cfa_ok || caller_regs(m, pc, &c) < 0) {
        *why = "no call frame information at the enter hook's call";
        return -1;
    }
    c.caller = 1;
    struct callers *k = &pool[used];
    memset(k, 0, sizeof *k);
    k->cfa_reg = c.cfa_reg;
    k->cfa_off = c.cfa_off;
    const char *site_why = NULL;
    walk(m, offs, reg, &c, k, &site_why);
    if (k->n == 0) {
        if (site_why)
            *why = site_why;
        return -1;
    }
    return used++;
}

int tp_argcall_run(int64_t idx, const uint64_t *regs, uint64_t *v)
{
    const struct callers *k = &pool[idx];
    uint64_t ret;
    memcpy(&ret, (const void *)(regs[k->cfa_reg] + (uint64_t)(k->cfa_off - 8)), sizeof ret);
    for (int i = 0; i < k->n; i++)
        if (k->ret[i] == ret) {
            *v = tp_argexpr_run(k->prog[i], regs);
            return 1;
        }
    return 0;
}
