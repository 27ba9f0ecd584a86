/* A parameter that only its value at entry describes at the enter hook's call
 * (DW_OP_entry_value(reg): nothing reads it after the hook, so the compiler kept it nowhere),
 * from the function's callers: each call site GCC describes (DW_TAG_call_site, DWARF 4's
 * DW_TAG_GNU_call_site) may say what the caller passed in reg (DW_AT_call_value), as an
 * expression over the caller's registers at the call, which the hook finds through the
 * function's call frame information (the caller's rsp is the CFA, a callee-saved register is
 * still in place or where the prologue saved it). Which caller a call came from is its return
 * address, at CFA - 8. A call from elsewhere (a caller without debug information, a call site
 * that does not give the value) gets no work, and is counted. */
#ifndef TPROF_ARGCALL_H
#define TPROF_ARGCALL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "track/work/argexpr.h"

#define TP_ARGCALL_SITES 32 /* callers of one function that give a value */

/* The function whose out-of-line body is fn (its DIE in module m), its parameter passed in
 * register reg, as seen at the hook's call pc (a run-time address). The table's index (>= 0), or
 * -1 with the reason in *why. Under argwork's lock, as tp_argexpr_compile. */
int tp_argcall_resolve(Dwfl_Module *m, Dwarf_Die *fn, int reg, uintptr_t pc,
                       const struct tp_xctx *c, const char **why);

/* The value this call's caller passed: 1 with *v, or 0 when its call site is not known. */
int tp_argcall_run(int64_t idx, const uint64_t *regs, uint64_t *v);

#endif
