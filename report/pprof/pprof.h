/* pprof profiles of a report (report/pprof/): the one header of the folder for code outside it.
 * render_pprof.c says what of the report goes in a profile, pprof_build.c builds and gzips it,
 * profile.proto is the format. */
#ifndef TPROF_REPORT_PPROF_H
#define TPROF_REPORT_PPROF_H

#include "common/buf.h"
#include "report/report.h"

/* A pprof profile (report/pprof/profile.proto, gzipped): TP_PPROF_HEAP, the heap's call sites
 * with alloc_objects, alloc_space, leak_space and peak_space (the default), each adding up to
 * the report's figure; TP_PPROF_TIME, the op stacks (needs r->opstacks) with calls, flops and
 * self nanoseconds (the default), and the time outside every op under its own root. 0, or -1
 * when memory ran out (b then holds nothing new). */
enum tp_pprof_kind { TP_PPROF_HEAP, TP_PPROF_TIME };
int tp_render_pprof(const struct tp_report *r, enum tp_pprof_kind kind, struct tp_buf *b);

#endif
