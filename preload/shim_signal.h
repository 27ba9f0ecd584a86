/* Signals (preload/shim_signal.c): the terminating signals whose default action tprof stands
 * in for, the report signal (TPROF_SIGNAL), and the sigaction and signal shims. A terminating
 * signal deferred while tprof held the guard is tp_pending_signal (track/heap.h). */
#ifndef TPROF_SHIM_SIGNAL_H
#define TPROF_SHIM_SIGNAL_H

/* Arm the terminating signals left at their default action (from tp_init, over the parts'
 * table). */
void tp_shim_signal_init(void);
/* Install the report signal's handler (from the constructor: tp_init may run inside the first
 * malloc). */
void tp_report_signal_start(void);
void tp_shim_signal_fork_child(void);

#endif
