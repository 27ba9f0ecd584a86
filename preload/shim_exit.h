/* _exit, _Exit, quick_exit and the exec family (preload/shim_exit.c). */
#ifndef TPROF_SHIM_EXIT_H
#define TPROF_SHIM_EXIT_H

/* Register the quick_exit handler: from the constructor, not from tp_init, which may run inside
 * the first malloc. */
void tp_shim_exit_start(void);

#endif
