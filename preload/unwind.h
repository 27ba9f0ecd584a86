/* The malloc shims' stack walk: return addresses by the CFA rules of .eh_frame, each return
 * address's rule read once and cached. Where a frame needs more than such a rule (a signal frame,
 * a DWARF expression, code without CFI) the walk gives up and the caller uses libunwind. */
#ifndef TPROF_UNWIND_H
#define TPROF_UNWIND_H

#include <stdint.h>

/* Walk from a frame that has a frame pointer: fp is its __builtin_frame_address(0), ra its
 * __builtin_return_address(0). Fills out[] with up to max return addresses, its caller's first
 * (as unw_backtrace does, less the frame of the function that calls this). Returns how many, or
 * -1 where the walk cannot be done this way. Never faults: every read is of the thread's stack,
 * checked against the bounds the rules imply. */
int tp_unwind(void **out, int max, void *ra, void *fp);

/* Off for good, as when a module is unloaded (its addresses may hold other code next, and
 * cached rules would describe code that is gone). */
void tp_unwind_disable(void);
/* In a fork child: the lock may have been held by a thread that does not exist there. */
void tp_unwind_fork_child(void);
void tp_unwind_fork_prepare(void);
void tp_unwind_fork_parent(void);

#endif
