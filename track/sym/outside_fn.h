/* What a function the CPU-time samples outside every op landed in is, for the advice the report
 * gives on it (report/advice.h): its name, module, kind, whether its module is stripped, and the
 * function the compiler inlined into it that holds most of its samples. Runs when a report is
 * written, never in the signal handler. */
#ifndef TPROF_OUTSIDE_FN_H
#define TPROF_OUTSIDE_FN_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

struct tp_symbolizer;

/* One sampled address of the function and its samples. */
struct tp_sampled_pc {
    uintptr_t pc;
    uint64_t n;
};

/* Fill o's name, module, kind, stripped and inlined from the function's sampled addresses
 * pcs[0..npcs) (npcs >= 1). *sym is opened on the first need of debug information (the caller
 * closes it). */
void tp_outside_describe(struct tp_outside_fn *o, const struct tp_sampled_pc *pcs, size_t npcs,
                         struct tp_symbolizer **sym);

/* A runtime's yield or idle loop by function name (sched_yield, OpenBLAS's idle thread server):
 * threads waiting, not work. */
int tp_outside_wait_name(const char *name);

#endif
