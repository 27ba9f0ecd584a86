/* The libraries whose functions are never ops: the C runtime, the toolchain's and languages'
 * runtimes, system libraries and tprof's own dependencies. The PLT hooks skip them
 * (preload/plt_mods.c), and the advice on the time outside every op never tells to name their
 * functions in TPROF_OPS (track/sym/outside_fn.c). */
#ifndef TPROF_SYSLIBS_H
#define TPROF_SYSLIBS_H

/* 1 when the module at path (a file name or a path) is one of them. */
int tp_syslib_denied(const char *path);

#endif
