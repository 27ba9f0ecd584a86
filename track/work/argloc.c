/* Parameter locations at the enter hook's call, from DWARF (see argloc.h). */
#include "track/work/argloc.h"

#include <dwarf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "track/work/argcall.h"
#include "track/work/argexpr.h"
#include "track/unwind/unwind.h"
#include "track/sym/sym.h"

static Dwfl *dwfl;
static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
    .find_elf = NULL, /* set at open: elfutils is loaded at run time */
};

static Dwfl *open_dwfl(void)
{
    static Dwfl_Callbacks cb;
    cb = callbacks;
    cb.find_elf = tp_dw.dwfl_linux_proc_find_elf;
    cb.find_debuginfo = tp_dw.dwfl_build_id_find_debuginfo;
    cb.debuginfo_path = &debuginfo_path;
    Dwfl *d = tp_dw.dwfl_begin(&cb);
    if (!d)
        return NULL;
    tp_dw.dwfl_report_begin(d);
    if (tp_dw.dwfl_linux_proc_report(d, getpid()) != 0 ||
        tp_dw.dwfl_report_end(d, NULL, NULL) != 0) {
        tp_dw.dwfl_end(d);
        return NULL;
    }
    return d;
}

void tp_argloc_forget(void)
{
    if (dwfl && tp_dw_ready())
        tp_dw.dwfl_end(dwfl);
    dwfl = NULL;
}

/* The module holding pc; the process's modules are read again when one loaded since holds it. */
static Dwfl_Module *module_at(uintptr_t pc)
{
    /* elfutils is loaded lazily: at start-up only with TPROF_WORK, so a built-in entry's first
     * call may be the first need of it, here in a hook, where loading is safe only while the
     * process has one thread (tp_dw_load_early). */
    if (!tp_dw_ready() && !tp_dw_load_early(pc))
        return NULL;
    if (!dwfl)
        dwfl = open_dwfl();
    Dwfl_Module *m = dwfl ? tp_dw.dwfl_addrmodule(dwfl, pc) : NULL;
    if (!m) {
        tp_argloc_forget();
        dwfl = open_dwfl();
        m = dwfl ? tp_dw.dwfl_addrmodule(dwfl, pc) : NULL;
    }
    return m;
}

/* The CFA at pc: register + offset, from the module's call frame information. */
static int cfa_at(Dwfl_Module *m, uintptr_t pc, struct tp_argset *out)
{
    Dwarf_Frame *fr = tp_dw_frame_at(m, pc);
    if (!fr)
        return -1;
    Dwarf_Op *ops;
    size_t n;
    int rc = -1;
    if (tp_dw.dwarf_frame_cfa(fr, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_bregx &&
        (ops[0].number == TP_DWREG_RSP || ops[0].number == TP_DWREG_RBP)) {
        out->cfa_reg = (uint8_t)ops[0].number;
        out->cfa_off = (int64_t)ops[0].number2;
        rc = 0;
    }
    tp_dw.free(fr);
    return rc;
}

/* The out-of-line function (a child of the compile unit) whose code holds pc. dwarf_getscopes
 * follows an inlined copy to its abstract definition, which has no frame base: the copy's
 * fbreg locations are off the frame base of the function it was inlined into. */
static int concrete_fn(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
    if (tp_dw.dwarf_child(cu, out) != 0)
        return -1;
    do {
        if (tp_dw.dwarf_tag(out) == DW_TAG_subprogram && tp_dw.dwarf_haspc(out, pc) == 1)
            return 0;
    } while (tp_dw.dwarf_siblingof(out, out) == 0);
    return -1;
}

/* The frame base of the function whose code holds pc: DW_OP_call_frame_cfa (as GCC writes it)
 * or a register + offset. *reg is 255 for the CFA. */
static int frame_base(Dwarf_Die *cu, Dwarf_Addr pc, uint8_t *reg, int64_t *off)
{
    Dwarf_Die fn;
    Dwarf_Attribute a;
    Dwarf_Op *e;
    size_t len;
    if (concrete_fn(cu, pc, &fn) != 0 || !tp_dw.dwarf_attr(&fn, DW_AT_frame_base, &a) ||
        tp_dw.dwarf_getlocation_addr(&a, pc, &e, &len, 1) != 1 || len != 1)
        return -1;
    if (e[0].atom == DW_OP_call_frame_cfa) {
        *reg = 255;
        *off = 0;
        return 0;
    }
    if (e[0].atom >= DW_OP_breg0 && e[0].atom <= DW_OP_breg15) {
        *reg = (uint8_t)(e[0].atom - DW_OP_breg0);
        *off = (int64_t)e[0].number;
        return 0;
    }
    return -1;
}

/* The integer type of a parameter: its size and signedness. */
static const char *int_type(Dwarf_Die *param, struct tp_argloc *l)
{
    Dwarf_Attribute a;
    Dwarf_Die t;
    Dwarf_Word size, enc;
    if (!tp_dw.dwarf_formref_die(tp_dw.dwarf_attr_integrate(param, DW_AT_type, &a), &t) ||
        tp_dw.dwarf_peel_type(&t, &t) != 0)
        return "its type is unknown";
    int tag = tp_dw.dwarf_tag(&t);
    if (tp_dw.dwarf_formudata(tp_dw.dwarf_attr(&t, DW_AT_byte_size, &a), &size) != 0 ||
        (size != 1 && size != 2 && size != 4 && size != 8))
        return "its type has no integer size";
    if (tag == DW_TAG_enumeration_type) {
        l->is_signed = 0;
    } else if (tag == DW_TAG_base_type &&
               tp_dw.dwarf_formudata(tp_dw.dwarf_attr(&t, DW_AT_encoding, &a), &enc) == 0 &&
               enc == DW_ATE_float && (size == 4 || size == 8)) {
        l->is_float = 1; /* darknet's gemm(..., float BETA, ...): nz(BETA) */
    } else if (tag == DW_TAG_base_type &&
               tp_dw.dwarf_formudata(tp_dw.dwarf_attr(&t, DW_AT_encoding, &a), &enc) == 0 &&
               (enc == DW_ATE_signed || enc == DW_ATE_signed_char || enc == DW_ATE_unsigned ||
                enc == DW_ATE_unsigned_char || enc == DW_ATE_boolean)) {
        l->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    } else {
        return "it is not an integer or a float";
    }
    l->size = (uint8_t)size;
    return NULL;
}

/* The enter hook's fast path uses rax, r10 and r11 (preload/hook/hook_cyg.c); %rdi and %rsi hold
 * its own arguments, which the DWARF knows. */
static int saved(Dwarf_Word r)
{
    return r != 0 && r != 10 && r != 11;
}

static const char *const reg_names[17] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi",
                                          "rbp", "rsp", "r8",  "r9",  "r10", "r11",
                                          "r12", "r13", "r14", "r15", "rip"};

/* The register of a DW_OP_entry_value in e, or -1 when there is none (-2: not a register). */
static int entry_value_reg(Dwarf_Attribute *loc, const Dwarf_Op *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (e[i].atom != DW_OP_entry_value && e[i].atom != DW_OP_GNU_entry_value)
            continue;
        /* its operand, a sub-expression, is one register as GCC writes it: DW_OP_regN */
        Dwarf_Op *sub;
        size_t ns;
        Dwarf_Attribute a;
        if (tp_dw.dwarf_getlocation_attr(loc, &e[i], &a) == 0 &&
            tp_dw.dwarf_getlocation(&a, &sub, &ns) == 0 && ns == 1 && sub[0].atom >= DW_OP_reg0 &&
            sub[0].atom <= DW_OP_reg16)
            return (int)(sub[0].atom - DW_OP_reg0);
        return -2;
    }
    return -1;
}

/* Where the hook's call is: for a value only its callers know (track/work/argcall.h). */
struct where {
    Dwfl_Module *m;
    Dwarf_Die *fn; /* the function's scope at the call: its out-of-line body or an inlined copy */
    Dwarf_Die *concrete; /* the out-of-line function holding the call (fn's own, or the one fn is
                          * inlined into), or NULL */
    uintptr_t pc;        /* run-time */
};

/* A value described as "what register r held at entry" (e[0..n)) of the out-of-line function
 * holding the hook's call (an inlined copy's is its host's): from that function's callers when
 * it is exactly that, else why not. */
static const char *entry_value(int r, const Dwarf_Op *e, size_t n, const struct where *w,
                               const struct tp_xctx *c, struct tp_argloc *l, char *buf, size_t len)
{
    if (r < 0 || r > 16)
        return "only its value at entry is described (DW_OP_entry_value), which no register "
               "holds at the hook's call";
    const char *why = "the function holding the hook's call is not in the debug information";
    int simple = n == 2 && e[1].atom == DW_OP_stack_value;
    if (simple && w->concrete) {
        int x = tp_argcall_resolve(w->m, w->concrete, r, w->pc, c, &why);
        if (x >= 0) {
            l->kind = TP_ARG_CALLER;
            l->off = x;
            return NULL;
        }
    } else if (!simple) {
        why = "it is computed from it (not supported)";
    }
    snprintf(buf, len,
             "only its value at entry is described (DW_OP_entry_value(%s)): %s %s at the "
             "hook's call, and %s",
             reg_names[r], reg_names[r],
             r == 4 || r == 5 ? "carries the hook's own argument" : "was changed before it", why);
    return buf;
}

/* One location expression as a tp_argloc. NULL, or why it cannot be read (in buf, or static). */
static const char *decode(Dwarf_Attribute *loc, const Dwarf_Op *e, size_t n, const struct where *w,
                          const struct tp_xctx *c, struct tp_argloc *l, char *buf, size_t len)
{
    unsigned atom = e[0].atom;
    int ev = entry_value_reg(loc, e, n);
    if (ev != -1)
        return entry_value(ev, e, n, w, c, l, buf, len);
    if (n == 1 && ((atom >= DW_OP_reg0 && atom <= DW_OP_reg15) || atom == DW_OP_regx)) {
        Dwarf_Word r = atom == DW_OP_regx ? e[0].number : atom - DW_OP_reg0;
        if (r >= 16 || r == TP_DWREG_RSP || !saved(r))
            return "it is in a register the hook does not save";
        l->kind = TP_ARG_REG;
        l->reg = (uint8_t)r;
        return NULL;
    }
    if (n == 1 && atom >= DW_OP_breg0 && atom <= DW_OP_breg15) {
        if (!saved(atom - DW_OP_breg0))
            return "it is relative to a register the hook does not save";
        l->kind = TP_ARG_MEM;
        l->reg = (uint8_t)(atom - DW_OP_breg0);
        l->off = (int64_t)e[0].number;
        return NULL;
    }
    if (n == 1 && atom == DW_OP_fbreg) {
        if (!c->fb_ok)
            return "its function's frame base is not understood";
        l->kind = c->fb_reg == 255 ? TP_ARG_CFA : TP_ARG_MEM;
        l->reg = c->fb_reg == 255 ? 0 : c->fb_reg;
        l->off = c->fb_off + (int64_t)e[0].number;
        return NULL;
    }
    if (n == 2 && e[1].atom == DW_OP_stack_value && atom >= DW_OP_breg0 && atom <= DW_OP_breg15) {
        /* a value the compiler keeps as register + constant (an inlined copy's "10 + argc") */
        if (!saved(atom - DW_OP_breg0))
            return "it is relative to a register the hook does not save";
        l->kind = TP_ARG_SUM;
        l->reg = (uint8_t)(atom - DW_OP_breg0);
        l->off = (int64_t)e[0].number;
        return NULL;
    }
    /* anything else that ends in a value, a constant included: a program the hook runs (-O3's
     * "r13 * 5", "the int at frame base - 76 times 6"; track/work/argexpr.h) */
    const char *why = "its location is not a register, a stack slot or a computed value";
    int x = e[n - 1].atom == DW_OP_stack_value ? tp_argexpr_compile(e, n, c, &why) : -1;
    if (x < 0)
        return why;
    l->kind = TP_ARG_EXPR;
    l->off = x;
    return NULL;
}

/* A parameter with no location entry at pc: a constant the compiler knows (DW_AT_const_value),
 * else why there is no value. */
static const char *no_location(Dwarf_Die *param, Dwarf_Attribute *loc, const struct where *w,
                               const struct tp_xctx *c, struct tp_argloc *l)
{
    Dwarf_Attribute a;
    Dwarf_Sword v;
    Dwarf_Addr lo;
    Dwarf_Op *e;
    size_t n;
    const char *why = "";
    if (tp_dw.dwarf_attr_integrate(param, DW_AT_const_value, &a) &&
        tp_dw.dwarf_formsdata(&a, &v) == 0) {
        l->kind = TP_ARG_CONST;
        l->off = (int64_t)v;
        return NULL;
    }
    if (!loc)
        return "it has no location in this copy of the function (optimised away: the value "
               "lives only in its caller)";
    /* No user code runs before the hook: in the function's own body a parameter still has the
     * value it came with, in the register its location names at the function's first address. */
    if (w->fn == w->concrete && tp_dw.dwarf_attr(w->fn, DW_AT_low_pc, &a) &&
        tp_dw.dwarf_formaddr(&a, &lo) == 0 &&
        tp_dw.dwarf_getlocation_addr(loc, lo, &e, &n, 1) == 1 && n == 1 &&
        e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg15) {
        int x = tp_argcall_resolve(w->m, w->fn, (int)(e[0].atom - DW_OP_reg0), w->pc, c, &why);
        if (x >= 0) {
            l->kind = TP_ARG_CALLER;
            l->off = x;
            return NULL;
        }
    }
    return *why ? "it has no location at the hook's call (optimised away), and no caller's call "
                  "site gives the value it came with (DW_AT_call_value)"
                : "it has no location at the hook's call (optimised away)";
}

/* The parameter named name among the children of die: its location at pc. */
static const char *locate(const struct where *w, const char *name, Dwarf_Addr pc,
                          const struct tp_xctx *ctx, struct tp_argloc *l, char *buf, size_t len)
{
    Dwarf_Die c;
    if (tp_dw.dwarf_child(w->fn, &c) != 0)
        return "the function has no parameters in its debug information";
    do {
        if (tp_dw.dwarf_tag(&c) != DW_TAG_formal_parameter)
            continue;
        const char *pn = tp_dw.dwarf_diename(&c);
        if (!pn || strcmp(pn, name))
            continue;
        const char *why = int_type(&c, l);
        if (why)
            return why;
        Dwarf_Attribute a;
        Dwarf_Op *e;
        size_t n;
        int has_loc = tp_dw.dwarf_attr(&c, DW_AT_location, &a) != NULL;
        if (!has_loc || tp_dw.dwarf_getlocation_addr(&a, pc, &e, &n, 1) != 1 || n == 0)
            why = no_location(&c, has_loc ? &a : NULL, w, ctx, l);
        else
            why = decode(&a, e, n, w, ctx, l, buf, len);
        /* a float lives past the hook's call in memory (every vector register is the callee's
         * to clobber); a register or a computed value would be an integer's reading of it */
        if (!why && l->is_float && l->kind != TP_ARG_MEM && l->kind != TP_ARG_CFA)
            why = "it is a float that is not in memory at the hook's call";
        return why;
    } while (tp_dw.dwarf_siblingof(&c, &c) == 0);
    return "no parameter has that name";
}

/* The scope of the function an entry names; a C++ entry "ns::cls::f" by its own name "f". */
static int scope_named(Dwarf_Die *d, const char *name)
{
    int tag = tp_dw.dwarf_tag(d);
    const char *n = tp_dw.dwarf_diename(d), *last = strrchr(name, ':');
    return (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) && n &&
           (!strcmp(n, name) || (last && !strcmp(n, last + 1)));
}

int tp_argloc_resolve(uintptr_t ra, const struct tp_work_fn *w, struct tp_argset *out, char *why,
                      size_t n)
{
    uintptr_t pc = ra - 1; /* the call instruction: ra may already start the next range */
    Dwfl_Module *m = module_at(pc);
    Dwarf_Addr bias;
    Dwarf_Die *cu = m ? tp_dw.dwfl_module_addrdie(m, pc, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int ns = cu ? tp_dw.dwarf_getscopes(cu, pc - bias, &scopes) : -1, at = 0;
    memset(out, 0, sizeof *out);
    while (at < ns && !scope_named(&scopes[at], w->name))
        at++;
    if (at >= ns) {
        snprintf(why, n, "%s",
                 !tp_dw_ready() ? "elfutils (libdw) is not loaded and cannot be loaded safely "
                                  "once threads run; TPROF_WORK (any entry) loads it at start-up"
                 : ns < 0       ? "no debug information (built without -g?)"
                                : "its debug information does not cover the enter hook");
        if (scopes)
            tp_dw.free(scopes);
        return -1;
    }
    struct tp_xctx ctx = {0};
    char buf[200];
    ctx.fb_ok = frame_base(cu, pc - bias, &ctx.fb_reg, &ctx.fb_off) == 0;
    ctx.cfa_ok = cfa_at(m, pc, out) == 0;
    ctx.cfa_reg = out->cfa_reg;
    ctx.cfa_off = out->cfa_off;
    Dwarf_Die conc;
    struct where wh = {m, &scopes[at], NULL, pc};
    if (concrete_fn(cu, pc - bias, &conc) == 0)
        wh.concrete = tp_dw.dwarf_tag(wh.fn) == DW_TAG_subprogram ? wh.fn : &conc;
    int need_cfa = 0;
    for (int i = 0; i < w->nvars; i++) {
        const char *r = locate(&wh, w->vars[i], pc - bias, &ctx, &out->loc[i], buf, sizeof buf);
        if (r) {
            snprintf(why, n, "parameter '%s': %s", w->vars[i], r);
            tp_dw.free(scopes);
            return -1;
        }
        need_cfa |= out->loc[i].kind == TP_ARG_CFA;
        out->loc[i].sh = (uint8_t)(64 - 8 * out->loc[i].size);
    }
    tp_dw.free(scopes);
    if (need_cfa && !ctx.cfa_ok) {
        snprintf(why, n, "no call frame information at the enter hook's call");
        return -1;
    }
    /* a slot off the CFA is one off the register the CFA is computed from: one kind fewer for
     * every call to tell apart */
    for (int i = 0; i < w->nvars; i++)
        if (out->loc[i].kind == TP_ARG_CFA) {
            out->loc[i].kind = TP_ARG_MEM;
            out->loc[i].reg = out->cfa_reg;
            out->loc[i].off += out->cfa_off;
        }
    out->n = w->nvars;
    return 0;
}

/* A parameter's type as the ABI passes it. */
static void param_type(Dwarf_Die *param, struct tp_work_param *p)
{
    Dwarf_Attribute a;
    Dwarf_Die t;
    Dwarf_Word size = 0, enc = 0;
    p->other = 1;
    if (!tp_dw.dwarf_formref_die(tp_dw.dwarf_attr_integrate(param, DW_AT_type, &a), &t) ||
        tp_dw.dwarf_peel_type(&t, &t) != 0)
        return;
    int tag = tp_dw.dwarf_tag(&t);
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
        tag == DW_TAG_rvalue_reference_type) {
        p->size = 8;
        p->other = 0;
        return;
    }
    if (tp_dw.dwarf_formudata(tp_dw.dwarf_attr(&t, DW_AT_byte_size, &a), &size) != 0 ||
        (size != 1 && size != 2 && size != 4 && size != 8))
        return;
    tp_dw.dwarf_formudata(tp_dw.dwarf_attr(&t, DW_AT_encoding, &a), &enc);
    if (tag == DW_TAG_base_type && enc == DW_ATE_float) {
        p->is_float = 1;
    } else if (tag == DW_TAG_base_type && enc != DW_ATE_complex_float) {
        p->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    } else if (tag != DW_TAG_enumeration_type) {
        return;
    }
    p->size = (uint8_t)size;
    p->other = 0;
}

int tp_argloc_params(uintptr_t fn, struct tp_work_param *out, int *n, char *why, size_t len)
{
    Dwfl_Module *m = module_at(fn);
    Dwarf_Addr bias;
    Dwarf_Die *cu = m ? tp_dw.dwfl_module_addrdie(m, fn, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int ns = cu ? tp_dw.dwarf_getscopes(cu, fn - bias, &scopes) : -1, at = 0;
    while (at < ns && tp_dw.dwarf_tag(&scopes[at]) != DW_TAG_subprogram)
        at++;
    *n = 0;
    if (at >= ns) {
        snprintf(why, len, "no debug information (built without -g?) and no prototype given");
        tp_dw.free(scopes);
        return -1;
    }
    Dwarf_Die c;
    if (tp_dw.dwarf_child(&scopes[at], &c) == 0) {
        do {
            if (tp_dw.dwarf_tag(&c) != DW_TAG_formal_parameter || *n >= TP_WORK_MAX_PARAMS)
                continue;
            struct tp_work_param *p = &out[(*n)++];
            memset(p, 0, sizeof *p);
            const char *nm = tp_dw.dwarf_diename(&c);
            snprintf(p->name, sizeof p->name, "%s", nm ? nm : "");
            param_type(&c, p);
        } while (tp_dw.dwarf_siblingof(&c, &c) == 0);
    }
    tp_dw.free(scopes);
    return 0;
}

int64_t tp_argloc_float(uint64_t raw, uint8_t size)
{
    struct tp_work_place p = {.size = size, .is_float = 1};
    return tp_work_value(raw, &p);
}
