/* Fill a report model from the live tables at the end of a run (or of a window). */
#ifndef TPROF_COLLECT_H
#define TPROF_COLLECT_H

#include "report/report.h"

void tp_collect(struct tp_report *r, const char *why);

#endif
