/* Parameter locations at the enter hook's call, from DWARF (see argloc.h). */
#include "track/argloc.h"

#include <dwarf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "track/cfaexpr.h"
#include "track/dwlib.h"

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
    Dwarf_Addr bias;
    Dwarf_CFI *cfi = tp_dw.dwfl_module_eh_cfi(m, &bias);
    if (!cfi)
        cfi = tp_dw.dwfl_module_dwarf_cfi(m, &bias);
    Dwarf_Frame *fr = NULL;
    if (!cfi || tp_dw.dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0 || !fr)
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

/* The frame base of the function whose code holds pc: DW_OP_call_frame_cfa (as GCC writes it)
 * or a register + offset. *reg is 255 for the CFA. */
static int frame_base(Dwarf_Die *scopes, int ns, int from, Dwarf_Addr pc, uint8_t *reg,
                      int64_t *off)
{
    for (int i = from; i < ns; i++) {
        Dwarf_Attribute a;
        if (tp_dw.dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
            !tp_dw.dwarf_attr(&scopes[i], DW_AT_frame_base, &a))
            continue;
        Dwarf_Op *e;
        size_t len;
        if (tp_dw.dwarf_getlocation_addr(&a, pc, &e, &len, 1) != 1 || len != 1)
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

/* The enter hook's fast path uses rax, r10 and r11 (preload/hook_cyg.c); %rdi and %rsi hold
 * its own arguments, which the DWARF knows. */
static int saved(Dwarf_Word r)
{
    return r != 0 && r != 10 && r != 11;
}

static int has_entry_value(const Dwarf_Op *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].atom == DW_OP_entry_value || e[i].atom == DW_OP_GNU_entry_value)
            return 1;
    return 0;
}

/* One location expression as a tp_argloc. NULL, or why it cannot be read. */
static const char *decode(const Dwarf_Op *e, size_t n, uint8_t fb_reg, int64_t fb_off, int fb_ok,
                          struct tp_argloc *l)
{
    unsigned atom = e[0].atom;
    if (has_entry_value(e, n))
        return "only its value at entry is described (optimised away before the hook)";
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
        if (!fb_ok)
            return "its function's frame base is not understood";
        l->kind = fb_reg == 255 ? TP_ARG_CFA : TP_ARG_MEM;
        l->reg = fb_reg == 255 ? 0 : fb_reg;
        l->off = fb_off + (int64_t)e[0].number;
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
    if (n == 2 && e[1].atom == DW_OP_stack_value) {
        l->kind = TP_ARG_CONST;
        if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31)
            l->off = atom - DW_OP_lit0;
        else if (atom == DW_OP_const1s || atom == DW_OP_const2s || atom == DW_OP_const4s ||
                 atom == DW_OP_const8s || atom == DW_OP_consts)
            l->off = (int64_t)e[0].number;
        else if (atom == DW_OP_const1u || atom == DW_OP_const2u || atom == DW_OP_const4u ||
                 atom == DW_OP_const8u || atom == DW_OP_constu)
            l->off = (int64_t)e[0].number;
        else
            return "its location is computed (not supported)";
        return NULL;
    }
    return "its location is not a register, a stack slot or a constant";
}

/* The parameter named name among the children of die: its location at pc. */
static const char *locate(Dwarf_Die *die, const char *name, Dwarf_Addr pc, uint8_t fb_reg,
                          int64_t fb_off, int fb_ok, struct tp_argloc *l)
{
    Dwarf_Die c;
    if (tp_dw.dwarf_child(die, &c) != 0)
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
        size_t len;
        if (!tp_dw.dwarf_attr(&c, DW_AT_location, &a) ||
            tp_dw.dwarf_getlocation_addr(&a, pc, &e, &len, 1) != 1 || len == 0)
            return "it has no location at the hook's call (optimised away)";
        why = decode(e, len, fb_reg, fb_off, fb_ok, l);
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
    uint8_t fb_reg = 0;
    int64_t fb_off = 0;
    int fb_ok = frame_base(scopes, ns, at, pc - bias, &fb_reg, &fb_off) == 0;
    int need_cfa = 0;
    for (int i = 0; i < w->nvars; i++) {
        const char *r =
            locate(&scopes[at], w->vars[i], pc - bias, fb_reg, fb_off, fb_ok, &out->loc[i]);
        if (r) {
            snprintf(why, n, "parameter '%s': %s", w->vars[i], r);
            tp_dw.free(scopes);
            return -1;
        }
        need_cfa |= out->loc[i].kind == TP_ARG_CFA;
        out->loc[i].sh = (uint8_t)(64 - 8 * out->loc[i].size);
    }
    tp_dw.free(scopes);
    if (need_cfa && cfa_at(m, pc, out) < 0) {
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
