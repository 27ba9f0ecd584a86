/* A record made a report (report/record.c): what the tprof program does to what libtprof.so
 * wrote (report/report.h, struct tp_record) before analysing and rendering it. */
#ifndef TPROF_REPORT_RECORD_H
#define TPROF_REPORT_RECORD_H

#include "report/report.h"

/* For a record (r->record.version > 0): name its call sites' frames, merge the sites that name
 * the same source lines, classify them (roles, system libraries, the interpreter, TPROF_SUPPRESS)
 * and split what is live at exit accordingly, say how many were written and rolled up, find the
 * machine's peaks (measured only for the report that ends a process, when an op has FLOPs), and
 * the functions inlined where the samples outside every op fell. r is then a report (version 0).
 * A report is left as it is. */
void tp_record_report(struct tp_report *r);
/* The same with sym, a symboliser kept across records (the reporter of one process's reports),
 * or NULL for one of its own. */
struct tp_symbolizer;
void tp_record_report_with(struct tp_report *r, struct tp_symbolizer *sym);

#endif
