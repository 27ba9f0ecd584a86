/* A parameter's value that -O2/-O3 code keeps only as a computation: GCC describes it with a
 * DWARF expression over registers and stack slots ("r13 * 5", "the int at frame base - 76,
 * sign-extended, times 6", "rsi - r15 >> 2") ending in DW_OP_stack_value. Such an expression is
 * compiled once, when the hook's call site is resolved (track/work/argloc.c), into a short program
 * over the registers the enter hook saved, which the hook runs on every call of the op.
 *
 * Only what is safe at the hook is accepted: registers the hook saves, constants, integer
 * arithmetic, and loads whose address is a saved register (or the CFA) plus a constant, as a
 * single-register location would read (a computed address could be anything). No division (a
 * zero would trap in the host program), no entry values, no pieces. */
#ifndef TPROF_ARGEXPR_H
#define TPROF_ARGEXPR_H

#include <elfutils/libdw.h>
#include <stdint.h>

#define TP_ARGEXPR_INS   16 /* instructions in one program */
#define TP_ARGEXPR_DEPTH 8  /* its evaluation stack */

struct tp_xins {
    uint8_t op, reg, size;
    int64_t arg;
};

struct tp_argexpr {
    int n;
    struct tp_xins ins[TP_ARGEXPR_INS];
};

/* What the compiler needs to know of the hook's call site: which registers the hook saved, the
 * frame base (fb_reg 255: the CFA) and the CFA (cfa_ok 0 when the call frame information did
 * not give it as a register + offset). */
struct tp_xctx {
    int fb_ok, cfa_ok;
    uint8_t fb_reg, cfa_reg;
    int64_t fb_off, cfa_off;
    /* Set to compile a caller's call-site value (track/work/argcall.h): an expression over the
     * caller's registers at its call, which need not end in DW_OP_stack_value. The caller's
     * rsp is the hook's CFA; a callee-saved register is where the function's call frame
     * information at the hook's call says: caller_how[r] 1 still in r, 2 saved at CFA +
     * caller_at[r]; 0 not known. No frame base. */
    int caller;
    uint8_t caller_how[16];
    int64_t caller_at[16];
};

/* Compile e[0..n) (a value, ending in DW_OP_stack_value). The program's index (>= 0), or -1 with
 * the reason in *why. Under argwork's lock: programs are kept for the process's life (a thread
 * may still run one after a dlclose voided its call site), in a fixed pool. */
int tp_argexpr_compile(const Dwarf_Op *e, size_t n, const struct tp_xctx *c, const char **why);

/* Run program idx on the hook's saved registers (track/work/argloc.h's regs[]). */
uint64_t tp_argexpr_run(int64_t idx, const uint64_t *regs);

#endif
