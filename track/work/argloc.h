/* Where a function's parameters are when its -finstrument-functions enter hook is called, from
 * its DWARF (built with -g), so that the hook can read their values (track/work/argwork.c).
 *
 * __cyg_profile_func_enter is called after the prologue: by then the argument registers may hold
 * something else (%rdi and %rsi always do: the hook's own arguments). What holds is what the
 * compiler's location description says at that call instruction (its return address - 1): a
 * register (a callee-saved one where the value lives on past the hook, -O2 and -O3), a stack
 * slot relative to the frame base (-O0: DW_OP_fbreg from DW_OP_call_frame_cfa, the CFA read from
 * the function's call frame information at that instruction; an inlined copy's off the frame
 * base of the function it was inlined into), a register-relative slot, a constant, or a
 * computation over those (-O3: track/work/argexpr.h). A value described only as "what register N held
 * at entry" (DW_OP_entry_value) comes from the callers' call sites (track/work/argcall.h); one with no
 * location at that instruction is gone: the function then gets no work, with the reason. */
#ifndef TPROF_ARGLOC_H
#define TPROF_ARGLOC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/workspec.h"
#include "track/work/argcall.h"
#include "track/work/argexpr.h"

/* Registers as the hook entry saved them, by DWARF x86-64 number: 0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp (the caller's, at the call: the hook's CFA), 8-15 r8-r15, and 16
 * the hook's return address. */
#define TP_ARG_NREGS 17

enum tp_arg_kind {
    TP_ARG_REG = 1, /* the value is in register reg */
    TP_ARG_MEM,     /* the value is in memory at register reg + off */
    TP_ARG_CFA,     /* the value is in memory at the CFA + off (made TP_ARG_MEM once known) */
    TP_ARG_SUM,     /* the value is register reg + off */
    TP_ARG_CONST,   /* the value is off (this and the next: the rare kinds, tested once) */
    TP_ARG_EXPR,    /* the value is what program off computes (track/work/argexpr.h) */
    TP_ARG_CALLER, /* the value is what this call's caller passed (track/work/argcall.h, table off) */
};

struct tp_argloc {
    uint8_t kind, reg, size, is_signed;
    uint8_t sh;       /* 64 - 8 * size: the value's bits are the low ones */
    uint8_t is_float; /* a float or double in memory, rounded as common/workabi.h's values */
    int64_t off;
};

/* How one call site of the enter hook finds one function's parameters. */
struct tp_argset {
    int n;           /* = the work entry's nvars */
    uint8_t cfa_reg; /* CFA = register cfa_reg + cfa_off (rsp or rbp), while resolving */
    int64_t cfa_off;
    struct tp_argloc loc[TP_WORK_MAX_VARS];
};

/* Resolve the parameters w names for the hook called by the function named w->name (its own
 * out-of-line body, or a copy inlined into another) whose return address is ra. 0, or -1 with
 * the reason in why. Takes libdw's time (reads the module's DWARF): call once per ra and keep
 * the result. Not thread-safe: under the caller's lock. */
int tp_argloc_resolve(uintptr_t ra, const struct tp_work_fn *w, struct tp_argset *out, char *why,
                      size_t n);

/* A float parameter's value as a formula operand (common/workabi.h's rounding). */
int64_t tp_argloc_float(uint64_t raw, uint8_t size);

/* The parameters' values from the registers the hook saved (regs[TP_ARG_NREGS]). A few loads,
 * inline: the enter hook of an op with a work entry runs it on every call. */
static inline int tp_argloc_read(const struct tp_argset *a, const uint64_t *regs, int64_t *vals)
{
    for (int i = 0; i < a->n; i++) {
        const struct tp_argloc *l = &a->loc[i];
        uint64_t v;
        if (__builtin_expect(l->kind >= TP_ARG_CONST, 0)) {
            if (l->kind == TP_ARG_CONST) {
                vals[i] = l->off;
                continue;
            }
            uint64_t c; /* a slot of its own: v stays in a register on the common path */
            if (l->kind == TP_ARG_EXPR)
                c = tp_argexpr_run(l->off, regs); /* a computed value: -O3 (track/work/argexpr.h) */
            else if (!tp_argcall_run(l->off, regs, &c))
                return 0; /* a caller whose call site is not known */
            v = c;
        } else {
            /* a register (off 0), a register + constant, or memory there (tp_argloc_resolve
             * made a slot off the CFA one off a register). A stack slot is read 8 bytes wide,
             * and the value's own bytes (the low ones) kept: the bytes above a slot are more of
             * the stack. */
            v = regs[l->reg] + (uint64_t)l->off;
            if (l->kind == TP_ARG_MEM)
                memcpy(&v, (const void *)v, sizeof v);
        }
        if (__builtin_expect(l->is_float, 0)) {
            vals[i] = tp_argloc_float(v, l->size);
            continue;
        }
        v <<= l->sh;
        vals[i] = l->is_signed ? (int64_t)v >> l->sh : (int64_t)(v >> l->sh);
    }
    return 1;
}

/* The parameters of the function that starts at fn, in order, with their types as the ABI
 * passes them (for a work entry without a prototype on a function hooked through the PLT). 0, or
 * -1 with the reason in why. Under the caller's lock, as tp_argloc_resolve. */
int tp_argloc_params(uintptr_t fn, struct tp_work_param *out, int *n, char *why, size_t len);

/* Drop what was read of the process's modules (after a dlclose). */
void tp_argloc_forget(void);

#endif
