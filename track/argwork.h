/* Work (FLOPs, bytes) and shape of a call of an instrumented op from its own arguments, as a
 * TPROF_WORK entry (common/workspec.h) names them and the function's DWARF places them
 * (track/argloc.h). The locations are resolved once per call site of the enter hook (its return
 * address) and kept in a table all threads read without a lock: a call then costs a lookup, a
 * few loads and the formula's few instructions. */
#ifndef TPROF_ARGWORK_H
#define TPROF_ARGWORK_H

#include <stdint.h>

#include "track/argloc.h"
#include "track/ops.h"

/* The enter hook of fn (an op) was called from ra with the registers regs[TP_ARG_NREGS]. 1 with
 * the call's work and shape filled in; 0 when fn has no work entry, or its parameters cannot
 * be found (said once per function, on stderr), or its formula fails for these values. */
int tp_argwork_enter(uintptr_t fn, uintptr_t ra, const uint64_t *regs, uint64_t *flops,
                     uint64_t *bytes, struct tp_shape_key *shape);

/* Calls whose formula overflowed, divided by zero or was negative (their work is unknown). */
uint64_t tp_argwork_failed(void);

/* After a dlclose: every resolved location is void. */
void tp_argwork_forget(void);

#endif
