/* Signals (preload/shim_signal.c): the terminating signals whose default action tprof stands
 * in for, the report signal (TPROF_SIGNAL), and the sigaction and signal shims. */
#ifndef TPROF_SHIM_SIGNAL_H
#define TPROF_SHIM_SIGNAL_H

#include <stdatomic.h>

/* A terminating signal that arrived while its thread was inside the allocator or tprof waits (0:
 * none) until the hook that was interrupted calls tp_signal_deferred() on its way out. */
extern __attribute__((visibility("hidden"))) _Atomic int tp_pending_signal;
void tp_signal_deferred(void);

/* Arm the terminating signals left at their default action (from tp_init, over the parts'
 * table). */
void tp_shim_signal_init(void);
/* Install the report signal's handler (from the constructor: tp_init may run inside the first
 * malloc). */
void tp_report_signal_start(void);
void tp_shim_signal_fork_child(void);

#endif
