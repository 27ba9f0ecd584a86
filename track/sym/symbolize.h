/* Address → function, file:line, module, with elfutils libdw over this process's own maps.
 * Used only when a report is written (never in a hook): slow, allocates, under the guard. */
#ifndef TPROF_SYMBOLIZE_H
#define TPROF_SYMBOLIZE_H

#include <stdint.h>

#include "report/report.h"

struct tp_symbolizer;

struct tp_symbolizer *tp_sym_open(void);
/* Describe the code at pc as the source frames it stands for, into out[0..max), innermost first:
 * the functions the compiler inlined there (inlined = 1; each with the line in it, the first with
 * pc's own), then the function that holds pc, with the line of its call to the outermost inlined
 * one (or pc's own line when nothing was inlined). Every frame has pc's module and offset. With
 * fewer than TP_SYM_MAX_FRAMES of room the real function is kept and the outer inlined ones go.
 * A return address is looked up at pc-1 (the call instruction). Returns how many frames (at least
 * 1 when max > 0). Strings in out are malloc'ed and owned by the caller. */
#define TP_SYM_MAX_FRAMES 16
int tp_sym_frames(struct tp_symbolizer *s, uintptr_t pc, int is_return_address,
                  struct tp_frame *out, int max);
void tp_sym_close(struct tp_symbolizer *s);

#endif
