/* CFA expressions: the small subset of DWARF expressions a CFA rule may use that the stack walk
 * can evaluate on registers alone (constants, register + offset, arithmetic, comparisons and
 * shifts). The linker writes such a rule for PLT stubs. Anything else, a memory read above all,
 * is refused: the walk then stops at that frame. */
#ifndef TPROF_CFAEXPR_H
#define TPROF_CFAEXPR_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers on x86-64. */
#define TP_DWREG_RBP 6
#define TP_DWREG_RSP 7
#define TP_DWREG_RA  16 /* the return address column, and rip in expressions */

/* Keep the expression ops[0..n) (as libdw gives a CFA): its number, the same for the same
 * expression, or -1 when the walk could not evaluate it or the table is full. Under the rule
 * table's lock (cfarules.c): an expression is written before the rule naming it is published. */
int tp_cfa_expr_intern(const Dwarf_Op *ops, size_t n);

/* The CFA by expression x, from the frame's rsp, rbp (when known) and rip. 0 when rbp is
 * needed and not known. */
uintptr_t tp_cfa_expr_eval(int x, uintptr_t rsp, uintptr_t rbp, int rbp_known, uintptr_t rip);

#endif
