/* The report thread: reports on demand (TPROF_SIGNAL) and periodic snapshots (TPROF_SNAPSHOT). */
#ifndef TPROF_REPORTER_H
#define TPROF_REPORTER_H

#include <stdint.h>

void tp_reporter_start(void);
void tp_reporter_fork_child(void);
/* Write the report so far and carry on. sig_seq > 0 numbers the files (".sig<N>"); 0 writes
 * the regular files (a snapshot). Returns 1 if written. */
int tp_report_now(const char *why, int sig_seq);
/* Periodic snapshots written so far, their total and longest wall time (ns). */
void tp_snapshot_stats(uint64_t *n, uint64_t *ns, uint64_t *max_ns);
/* Start a detached thread of tprof's that blocks every signal (the program's signals are the
 * program's). 0, or -1 when it could not be created. */
int tp_start_thread(void *(*fn)(void *));

#endif
