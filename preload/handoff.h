/* Handing a record to the tprof program, which reports it (preload/handoff.c). */
#ifndef TPROF_PRELOAD_HANDOFF_H
#define TPROF_PRELOAD_HANDOFF_H

#include <stddef.h>

#include "common/buf.h"

/* Start the reporter on record (a record's JSON: report/report.h, struct tp_record), asking for
 * the outputs named in kinds (comma-separated: json, text, html, folded, folded-heap), text
 * tables of top rows, and wait for it. 0 with its answer appended to *answer (each output as a
 * line "KIND LENGTH" and LENGTH bytes); -1 with why (one line) when there is no reporter or it
 * failed. Called with the guard held, one report at a time. */
int tp_handoff(const struct tp_buf *record, const char *kinds, int top, struct tp_buf *answer,
               char *why, size_t n);

#endif
