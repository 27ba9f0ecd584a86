/* The malloc shims' stack walk: return addresses by the CFA rules of .eh_frame (cfarules.h, which
 * also has the walker's life cycle: disable, dlclose, fork). Signal frames, CFA expressions (PLT
 * stubs) and the vDSO are stepped too; where no rule can be followed (code without CFI, a frame
 * off the thread's stack, elfutils not loaded yet) the walk stops with what it has. */
#ifndef TPROF_UNWIND_H
#define TPROF_UNWIND_H

#include <stdint.h>

#include "track/unwind/cfarules.h"

/* Walk from a frame that has a frame pointer: fp is its __builtin_frame_address(0), ra its
 * __builtin_return_address(0). Fills out[] with up to max return addresses, ra first (as
 * unw_backtrace does, less the frame of the function that calls this; under a signal frame the
 * interrupted pc itself). Returns how many: at least 1 when max > 0, 0 when the walker is off.
 * Never faults: every read is of the thread's stack, checked against the bounds the rules imply,
 * or of a module's code inside its executable segment. */
int tp_unwind(void **out, int max, void *ra, void *fp);
/* A call hooked at the PLT returns through ret, its real return address kept aside: real(slot)
 * gives it from the address of the stack slot ret was read at (0 if none), so that the walk goes
 * on into the caller instead of stopping (preload/shim_plt.c). */
void tp_unwind_plt(uintptr_t ret, uintptr_t (*real)(uintptr_t slot));

#endif
