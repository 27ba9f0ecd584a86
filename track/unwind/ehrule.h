/* A frame's rules as libdw states them (struct tp_eh_frame, from track/unwind/ehframe.c or from libdw
 * itself), made into the stack walk's rule (track/unwind/cfarules.h). */
#ifndef TPROF_EHRULE_H
#define TPROF_EHRULE_H

#include "track/unwind/ehframe.h"

/* A CFA expression's operations, those cfaexpr.c may keep, decoded from its bytes x[0..len) as
 * libdw decodes them; 0 for any other (libdw's list would be refused all the same). */
size_t tp_eh_cfa_ops(const uint8_t *x, uint64_t len, Dwarf_Op *o);

/* libdw's frame (dwarf_cfi_addrframe) stated the same way: the rule table's fallback for what
 * ehframe.c leaves to libdw, and the tests' yardstick. Needs elfutils loaded (track/sym/dwlib.c). */
void tp_eh_frame_of_dw(Dwarf_Frame *fr, struct tp_eh_frame *out);

/* The stack walk's rule for a frame: "no rule" unless the CFA is rsp or rbp + k (or an
 * expression cfaexpr.c keeps), the return address is at CFA + k (or undefined: the outermost
 * frame) and rbp is unchanged, saved at CFA + k or undefined. A CFA expression is kept by
 * tp_cfa_expr_intern: called under the rule table's lock. */
struct tp_cfa_rule tp_cfa_rule_from(const struct tp_eh_frame *f);

#endif
