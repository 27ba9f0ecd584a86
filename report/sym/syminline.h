/* The functions a compiler inlined at one address, from the DWARF scopes around it (what
 * `eu-addr2line -i` prints). Used only when a report is written, by report/sym/symbolize.c. */
#ifndef TPROF_REPORT_SYM_SYMINLINE_H
#define TPROF_REPORT_SYM_SYMINLINE_H

#include "report/report.h"
#include "report/sym/sym.h"

/* The chain of inlined functions at pc (a process address inside module m), innermost first,
 * into out[0..max): each frame's function (malloc'ed), inlined = 1, and for out[1..] the file
 * and line of the call in it to the function inlined before; out[0]'s own line is the line table's
 * (the caller's to fill). The call in the real function around them all, to the outermost
 * inlined one, goes to *call_file (malloc'ed) and *call_line. Returns how many were inlined:
 * 0 when none (out and the call untouched), without DWARF or libdw too. */
int tp_sym_inlines(Dwfl_Module *m, Dwarf_Addr pc, struct tp_frame *out, int max, char **call_file,
                   int *call_line);

#endif
