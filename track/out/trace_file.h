/* The Chrome Trace Event file (TPROF_TRACE) from what tracebuf.c recorded, with the ops' names,
 * kinds and shapes. When the file is written, events stop before it would pass TPROF_TRACE_MAX
 * bytes; the calls left out are summarised per op in the file and in the report. */
#ifndef TPROF_TRACE_FILE_H
#define TPROF_TRACE_FILE_H

struct tp_buf;
struct tp_report;

/* Render the trace file of what was recorded so far into b (at most TPROF_TRACE_MAX bytes) and
 * fill r->outputs' trace counters. r is the collected report (for the program and the peak). */
void tp_trace_render(struct tp_report *r, struct tp_buf *b);

#endif
