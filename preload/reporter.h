/* The report thread (preload/reporter.c): reports on demand (TPROF_SIGNAL) and periodic
 * snapshots (TPROF_SNAPSHOT). */
#ifndef TPROF_REPORTER_H
#define TPROF_REPORTER_H

/* Start the thread (from the constructor), and again in a forked child. */
void tp_reporter_start(void);
void tp_reporter_fork_child(void);
/* Ask for a report on demand: async-signal-safe (the report signal's handler). */
void tp_reporter_request(void);

#endif
