/* Ops in shared libraries through their PLT and GOT: the one header of preload/plt/ for code outside it. */
#ifndef TPROF_PRELOAD_PLT_PLT
#define TPROF_PRELOAD_PLT_PLT

/* Ops in shared libraries of a program that cannot be rebuilt: calls through the PLT and the GOT
 * to the exports TPROF_OPS names (plt_patch.c patches the GOT entries, shim_plt.c records the
 * calls). */
struct tp_report;

/* Once from tp_init(), after tp_ops_init(): reads TPROF_PLT and hooks the modules loaded at
 * start. */
void tp_plt_init(void);
/* Hook the modules not hooked yet (after dlopen). */
void tp_plt_scan(void);
/* Forget the modules that are gone (after dlclose, or a dlopen that failed). */
void tp_plt_forget(void);
/* RTLD_DEEPBIND flags removed by the dlopen wrapper, for the report. */
void tp_dl_note_deepbind(void);
/* fork (the parts' table, preload/main.c): the patcher's lock is taken, released, made new. */
void tp_plt_fork_prepare(void);
void tp_plt_fork_parent(void);
void tp_plt_fork_child(void);
/* Notes for the report (exports left alone, tables that ran out). */
void tp_plt_collect(struct tp_report *r);

/* A module the scan read calls __cyg_profile_func_enter: it was built with
 * -finstrument-functions, so its ops may have work entries (built-in ones included), whose
 * argument locations need elfutils. */
extern int tp_plt_saw_cyg;

#endif
