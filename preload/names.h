/* Ops by name: the -finstrument-functions hooks (hook_cyg.c), the PLT/GOT hooks on shared-library
 * exports (hook_plt.c) and the dlopen/dlclose wrappers that keep both current (hook_dl.c). */
#ifndef TPROF_NAMES_H
#define TPROF_NAMES_H

#include <stdint.h>

#include "track/runtime.h"

struct tp_report;

/* Called once from tp_init(), after tp_ops_init(): measures the cost of a hook, reads
 * TPROF_PLT and hooks the PLT/GOT of the modules loaded at start. */
void tp_cyg_init(void);

/* The family of an op from its name: matmul, gemv, conv, attention, softmax, norm, pool,
 * activation, ... else "op". */
const char *tp_names_kind(const char *name);

/* TPROF_STEP names this function (plain, or demangled with or without its parameter list). */
int tp_names_is_step(const char *name);

/* A module was unloaded: function addresses may now mean something else. */
void tp_cyg_forget(void);

/* PLT/GOT hooking: set up (from tp_cyg_init), hook the modules not hooked yet (after dlopen),
 * forget the modules that are gone (after dlclose). */
void tp_plt_init(void);
/* 1 once some function is hooked through the PLT. */
extern int tp_plt_hooked;
void tp_plt_scan(void);
void tp_plt_forget(void);
void tp_plt_collect(struct tp_report *r);
/* RTLD_DEEPBIND flags removed by the dlopen wrapper, for the report. */
void tp_dl_note_deepbind(void);

/* Notes for the report (hook cost correction, PLT hooks, tables that ran out); to be called
 * from tp_collect(). */
void tp_names_collect(struct tp_report *r);

#endif
