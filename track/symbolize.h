/* Address → function, file:line, module, with elfutils libdw over this process's own maps.
 * Used only when a report is written (never in a hook): slow, allocates, under the guard. */
#ifndef TPROF_SYMBOLIZE_H
#define TPROF_SYMBOLIZE_H

#include <stdint.h>

#include "report/report.h"

struct tp_symbolizer;

struct tp_symbolizer *tp_sym_open(void);
/* Describe the code at pc; a return address is looked up at pc-1 (the call instruction).
 * Strings in out are malloc'ed and owned by the caller. */
void tp_sym_frame(struct tp_symbolizer *s, uintptr_t pc, int is_return_address,
                  struct tp_frame *out);
void tp_sym_close(struct tp_symbolizer *s);

#endif
