/* Handing a record to the tprof program, which reports it (preload/handoff.c). */
#ifndef TPROF_PRELOAD_HANDOFF_H
#define TPROF_PRELOAD_HANDOFF_H

#include <stddef.h>

#include "common/buf.h"

/* Have the reporter (started on the first call) report record (a record's JSON:
 * report/report.h, struct tp_record), asking for the outputs named in kinds (comma-separated:
 * json, text, html, folded, folded-heap), text tables of top rows. 0 with its answer appended to
 * *answer (each output as a line "KIND LENGTH" and LENGTH bytes); -1 with why (one line) when
 * there is no reporter or it failed. keep 1: the process goes on and will report again (a
 * snapshot, TPROF_SIGNAL): the reporter stays for the next call; 0: it ends, and is waited for.
 * Called with the guard held, one report at a time. */
int tp_handoff(const struct tp_buf *record, const char *kinds, int top, int keep,
               struct tp_buf *answer, char *why, size_t n);
/* Before an exec (preload/shim_exit.c) and at the end: a reporter still kept is told to end and
 * waited for, so that no child of ours outlives this image unwaited. */
void tp_handoff_end(void);
/* A forked child: its parent's reporter is not its own. */
void tp_handoff_fork_child(void);

#endif
