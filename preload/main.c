/* libtprof.so's entry points: the constructor and destructor, and the table of its parts (the
 * one place that names every part). The life cycle (lifecycle.c) and the report (track/out/collect.c)
 * reach the parts through this table only.
 *
 * The table's order is the order of init, of the locks taken before fork (outer first: a report
 * reads the module list; nothing that holds a later lock waits for an earlier one) and of the
 * child's handlers; the parent releases in reverse. Notes come in table order too, at the end of
 * the report's notes (notes_with_ops: right after the ops' own). */
#include "preload/main.h"
#include "preload/handoff.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "preload/lifecycle.h"
#include "preload/hook/hook.h"
#include "preload/execenv.h"
#include "preload/plt/plt.h"
#include "preload/reporter.h"
#include "preload/real.h"
#include "preload/shim_exit.h"
#include "preload/shim_signal.h"
#include "common/config.h"
#include "common/out/out.h"
#include "track/sym/sym.h"
#include "track/gpu/gpu.h"
#include "track/heap/heap.h"
#include "track/ops/ops.h"
#include "track/out/out.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/unwind/unwind.h"

/* Heap and sites take their settings and callbacks from here, so that the tables call nothing
 * above them. */
static void heap_init(void)
{
    tp_heap_init(tp_ops_current, tp_warn);
}
static void sites_init(void)
{
    tp_sites_init(tp_cfg.stack, tp_cfg.max_sites, tp_cfg.memory_budget, tp_warn);
}

/* The CPU-time sampler installs SIGPROF's action with the real sigaction: ours would take it
 * for the program's. */
static void sample_init(void)
{
    if (tp_cfg.signal != SIGPROF) /* TPROF_SIGNAL=PROF: that signal asks for reports */
        tp_sample_start(tp_cfg.sample_hz, (tp_sigaction_fn)tp_real("sigaction"));
}

/* The text report goes to the stderr the program started with (common/out/errout.c). */
static void report_files_init(void)
{
    if (!strcmp(tp_cfg.output, "stderr"))
        tp_errout_init();
}

static const struct tp_component parts[] = {
    /* name, init, fork_prepare, fork_parent, fork_child, notes, notes_with_ops */
    {"symbol table", NULL, tp_symtab_lock, tp_symtab_unlock, tp_symtab_reset_lock, NULL, 0},
    {"ops", tp_ops_init, tp_ops_fork_prepare, tp_ops_fork_parent, tp_ops_fork_child, NULL, 0},
    {"module map", NULL, tp_modmap_fork_prepare, tp_modmap_fork_parent, tp_modmap_fork_child, NULL,
     0},
    {"stack walker", NULL, tp_unwind_fork_prepare, tp_unwind_fork_parent, tp_unwind_fork_child,
     NULL, 0},
    {"heap", heap_init, tp_heap_fork_prepare, tp_heap_fork_parent, tp_heap_fork_child, NULL, 0},
    {"sites", sites_init, NULL, NULL, NULL, NULL, 0},
    {"mappings", NULL, NULL, NULL, tp_maps_fork_child, NULL, 0},
    {"memory ledger", NULL, NULL, NULL, tp_ledger_fork_child, NULL, 0},
    {"gpu", NULL, NULL, NULL, tp_gpu_fork_child, NULL, 0},
    {"op tree", tp_optree_init, NULL, NULL, tp_optree_fork_child, NULL, 0},
    {"trace", tp_trace_init, NULL, NULL, tp_trace_fork_child, NULL, 0},
    {"real functions", NULL, NULL, NULL, NULL, tp_resolve_collect, 1},
    {"instrumented functions", tp_cyg_init, NULL, NULL, NULL, tp_names_collect, 0},
    /* after the instrumented functions: their notes come first in the report */
    {"PLT hooks", tp_plt_init, tp_plt_fork_prepare, tp_plt_fork_parent, tp_plt_fork_child,
     tp_plt_collect, 0},
    {"report thread", NULL, NULL, NULL, tp_reporter_fork_child, NULL, 0},
    {"signals", tp_shim_signal_init, NULL, NULL, tp_shim_signal_fork_child, NULL, 0},
    {"report files", report_files_init, NULL, NULL, tp_output_fork_child, NULL, 0},
    {"reporter", NULL, NULL, NULL, tp_handoff_fork_child, NULL, 0},
    {"process identity", NULL, NULL, NULL, NULL, tp_lifecycle_notes, 0},
    {"CPU samples", sample_init, NULL, NULL, tp_sample_fork_child, NULL, 0},
    {"waits", tp_wait_map_modules, NULL, NULL, tp_wait_fork_child, NULL, 0},
    {"series", NULL, NULL, NULL, tp_series_fork_child, NULL, 0},
    {"exec environment", tp_execenv_init, NULL, NULL, NULL, NULL, 0},
};

void tp_preload_init(void)
{
    if (atomic_load(&tp_state) == TP_BOOT)
        tp_components_set(parts, sizeof parts / sizeof parts[0]);
    tp_init();
}

__attribute__((constructor)) static void tp_ctor(void)
{
    tp_preload_init();
    /* Threads are started here rather than in tp_init, which may run inside the first malloc. */
    if (tp_running()) {
        tp_reporter_start();
        tp_report_signal_start();
        tp_trace_start();
        tp_shim_exit_start();
        tp_ledger_start();
        /* elfutils is loaded when something needs it: the report's symbols (track/sym/symbolize.c),
         * a rule the .eh_frame reader leaves to libdw (track/unwind/cfarules.c); a short process that
         * writes nothing never maps it. TPROF_WORK reads argument locations from DWARF in the
         * hooks, where loading is not safe: now then, at a safe point (the configuration is
         * read and no lock of the program's is held). So do the built-in entries, in a program
         * with code built with -finstrument-functions: a threaded BLAS has started its threads
         * by its first call, when loading is no longer safe. */
        if (tp_cfg.work || tp_plt_saw_cyg)
            tp_dw_load();
    }
}

__attribute__((destructor)) static void tp_dtor(void)
{
    tp_finish("exit");
}
