/* Modules that were unloaded (dlclose) while call sites still point into them: their path and
 * where they were mapped, so the report can still name those frames. */
#ifndef TPROF_MODULES_H
#define TPROF_MODULES_H

#include <stdint.h>

struct tp_departed {
    char path[512];
    uintptr_t base;     /* load bias */
    uintptr_t lo, hi;   /* address range of its PT_LOAD segments */
};

/* Call before the real dlclose(handle): remember where the module was. Safe to call for a
 * handle that stays loaded (the entry is then ignored: its addresses are still mapped). */
void tp_modules_before_dlclose(void *handle);
/* The list's lock across fork (state.c's handlers). */
void tp_modules_fork_prepare(void);
void tp_modules_fork_parent(void);
void tp_modules_fork_child(void);
/* The remembered modules, oldest first. */
const struct tp_departed *tp_modules_departed(int *n);

#endif
