/* The machine's peaks in a report, and the note on where they come from: from the environment,
 * the per-host cache or a quick measurement (report/peaks/peaks.h), which only the report that ends the
 * process makes. */
#ifndef TPROF_COLLECT_MACHINE_H
#define TPROF_COLLECT_MACHINE_H

#include "report/report.h"

/* Fill r->machine for a report on `why` whose ops are already collected, and add its note. */
void tp_collect_machine(struct tp_report *r, const char *why);

#endif
