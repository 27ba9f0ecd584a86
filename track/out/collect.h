/* Fill a report model from the live tables at the end of a run (or of a window). */
#ifndef TPROF_COLLECT_H
#define TPROF_COLLECT_H

#include "report/report.h"

void tp_collect(struct tp_report *r, const char *why);
/* The calling thread writes only reports made while the program runs on (snapshots, reports on
 * signal), never the one that ends the process: preload/reporter.c's thread. */
void tp_collect_interim_thread(void);
/* At the end of a run whose report is not written (track/out/output.h): what it would still say on
 * stderr, the settings that selected no function (track/ops/unmatched.h); nothing else is collected. */
void tp_collect_unwritten(void);

#endif
