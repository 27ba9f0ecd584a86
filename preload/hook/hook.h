/* The interposed calls: the one header of preload/hook/ for code outside it. */
#ifndef TPROF_PRELOAD_HOOK_HOOK
#define TPROF_PRELOAD_HOOK_HOOK

/* Ops in programs built with -finstrument-functions (hook_cyg.c). */
struct tp_report;

/* Once from tp_init(), after tp_ops_init(): the decision table, TPROF_HOOK_NS. */
void tp_cyg_init(void);

/* Measure the cost of one hook now if not done yet (the PLT hooks judge ops by it too:
 * track/ops/demote.c). */
void tp_cyg_calibrate(void);

/* A module was unloaded: function addresses may now mean something else. */
void tp_cyg_forget(void);

/* Notes for the report (hook cost correction, tables that ran out); from tp_collect(). */
void tp_names_collect(struct tp_report *r);

#endif
