/* Every way out of a process image (PITFALLS P8, P9): fatal and terminating signals, _exit,
 * quick_exit, exec. Each writes the report once through tp_finish(), then lets the program go the way it
 * would have gone without tprof. */
#ifndef TPROF_EXITPATHS_H
#define TPROF_EXITPATHS_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

void tp_exitpaths_init(void);
/* What must wait for our constructor (tp_exitpaths_init may run inside the first malloc). */
void tp_exitpaths_start(void);
/* A terminating signal that arrived while its thread was inside the allocator or tprof waits (0:
 * none) until the hook that was interrupted calls tp_signal_deferred() on its way out. */
extern _Atomic int tp_pending_signal;
void tp_signal_deferred(void);

/* The program's actions for the signals whose default action tprof stands in for ("armed";
 * see exitpaths.c). The sigaction and signal shims (reporter.c) send armed signals here. */
typedef int (*tp_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
tp_sigaction_fn tp_real_sigaction(void);
int tp_exitpaths_armed(int sig);
int tp_exitpaths_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* Turn a kernel action into what the program installed (our stand-in reads as SIG_DFL). */
void tp_exitpaths_view(int sig, struct sigaction *k);
/* The action the report signal's handler chains to when the program installs act. */
void tp_exitpaths_chain_action(int sig, struct sigaction *act);
/* Write the report unless already written; 1 if this call wrote it. */
int tp_finish(const char *why);
/* A terminating signal ends the process while a report is written: remove its temporary file
 * (async-signal-safe). */
void tp_report_abandon(void);
/* An exec failed after tp_finish(): carry on recording (a later report replaces that one). */
void tp_resume_after_failed_exec(void);
long tp_ident_pid(void);
/* This image's "TPROF_IMAGE=..." and "TPROF_ROOT_PID=..." entries for the environment of an exec
 * (state.c); 0 when tprof is off in this process. */
int tp_ident_env(char *img, size_t ni, char *root, size_t nr);

/* Provided by other parts; called from tp_init() and the fork handler. */
void tp_cyg_init(void);
void tp_ops_fork_prepare(void);
void tp_ops_fork_parent(void);
void tp_ops_fork_child(void);

#endif
