/* Naming frames: module and offset to function, file:line and the functions inlined there, with
 * elfutils' libdwfl (report/sym/symbolize.c). Only the tprof program names frames; the profiled
 * process records modules and offsets (track/out/collect.c) and never reads debug information
 * for a report. The one header of report/sym/ for code outside it. */
#ifndef TPROF_REPORT_SYM_SYM_H
#define TPROF_REPORT_SYM_SYM_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "report/report.h"

struct tp_symbolizer;

/* A symboliser; debuginfod 1 (TPROF_DEBUGINFOD=1): the DEBUGINFOD_URLS servers are asked for
 * debug files this machine does not have. NULL without memory or libelf. */
struct tp_symbolizer *tp_sym_open(int debuginfod);
/* Describe the code at offset (from its load bias) of the module file at path as the source
 * frames it stands for, into out[0..max), innermost first: the functions the compiler inlined
 * there (inlined = 1; each with the line in it, the first with the offset's own), then the
 * function that holds it, with the line of its call to the outermost inlined one (or the
 * offset's own line when nothing was inlined). Every frame has the module and the offset as the
 * module's first segment counts it. With fewer than TP_SYM_MAX_FRAMES of room the real function
 * is kept and the outer inlined ones go. A return address is looked up one byte before (the
 * call instruction). Returns how many frames (at least 1 when max > 0 and memory allows; a
 * module that cannot be read gives one frame of module and offset). Strings in out are
 * malloc'ed and owned by the caller. */
#define TP_SYM_MAX_FRAMES 16
int tp_sym_frames(struct tp_symbolizer *s, const char *path, uint64_t offset, int is_return_address,
                  struct tp_frame *out, int max);
void tp_sym_close(struct tp_symbolizer *s);

#endif
