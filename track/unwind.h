/* The malloc shims' stack walk: return addresses by the CFA rules of .eh_frame, each return
 * address's rule read once (libdw, preload/dwlib.h) and cached. Signal frames, CFA expressions
 * (PLT stubs) and the vDSO are stepped too; where no rule can be followed (code without CFI, a
 * frame off the thread's stack, elfutils not loaded yet) the walk stops with what it has. */
#ifndef TPROF_UNWIND_H
#define TPROF_UNWIND_H

#include <stdint.h>

/* Walk from a frame that has a frame pointer: fp is its __builtin_frame_address(0), ra its
 * __builtin_return_address(0). Fills out[] with up to max return addresses, ra first (as
 * unw_backtrace does, less the frame of the function that calls this; under a signal frame the
 * interrupted pc itself). Returns how many: at least 1 when max > 0, 0 when the walker is off.
 * Never faults: every read is of the thread's stack, checked against the bounds the rules imply,
 * or of a module's code inside its executable segment. */
int tp_unwind(void **out, int max, void *ra, void *fp);

/* Off for good (0 frames from then on). */
void tp_unwind_disable(void);
/* After a dlclose: the cached rules of code no longer loaded are dropped (its addresses may
 * hold other code next). Takes the loader's lock: not under a tprof lock. */
void tp_unwind_dlclosed(void);
/* In a fork child (nothing to do: the walker's fork handlers keep its lock consistent). */
void tp_unwind_fork_child(void);
void tp_unwind_fork_prepare(void);
void tp_unwind_fork_parent(void);

#endif
