/* The library's life cycle (preload/lifecycle.c): initialisation over the parts' table, fork,
 * the report at the end and while the program runs, and who this process image is. The shims
 * of the ways out of a process (shim_signal.c, shim_exit.c) and the report thread call it; it
 * names none of them. */
#ifndef TPROF_LIFECYCLE_H
#define TPROF_LIFECYCLE_H

#include <stddef.h>

/* Initialise the library over the parts' table (track/runtime.h), which must be set:
 * idempotent, cheap after the first call. preload/main.c's tp_preload_init sets the table and
 * calls it. */
void tp_init(void);

/* Write the report unless already written; 1 if this call wrote it. */
int tp_finish(const char *why);
/* Write the report so far and carry on. sig_seq > 0 numbers the files (".sig<N>"); 0 writes
 * the regular files (a snapshot). Returns 1 if written. */
int tp_report_now(const char *why, int sig_seq);
/* An exec failed after tp_finish(): carry on recording (a later report replaces that one). */
void tp_resume_after_failed_exec(void);

/* What started the report at the end in progress (or written): 1 for a terminating signal; 1 for
 * exit() (or a return from main). */
int tp_finishing_on_signal(void);
int tp_finishing_at_exit(void);

/* fork's handlers (registered with pthread_atfork), for a clone system call that copies the
 * process as fork does (preload/shim_clone.c); tp_fork_handlers() is 0 while they are not
 * registered (tprof is off or not started). */
void tp_fork_prepare(void);
void tp_fork_parent(void);
void tp_fork_child(void);
int tp_fork_handlers(void);

/* What to call when tp_finish or a fork lets go of the guard: a terminating signal that came in
 * meanwhile was deferred and is acted on now (shim_signal.c sets it at init). */
void tp_lifecycle_on_release(void (*fn)(void));

/* After vfork (or a clone with CLONE_VM) the child shares our memory but is not us: it must not
 * touch tprof's state. Its pid differs from ours but no fork handler told us. A child with a copy
 * of our memory that no fork handler saw (a clone system call made by the program's own code) is
 * told apart, and from then on is a process of its own (0): its report says that its figures
 * include its parent's. */
int tp_in_vfork_child(void);
/* The report's note on such a child (a part's notes, preload/main.c). */
struct tp_report;
void tp_lifecycle_notes(struct tp_report *r);
/* This image's "TPROF_IMAGE=..." and "TPROF_ROOT_PID=..." entries for the environment of an
 * exec; 0 when tprof is off in this process. The second fits in TP_ROOT_ENV_MAX bytes. */
#define TP_ROOT_ENV_MAX 288
/* The root, as it starts a child: make the run's directory if it has none yet (lifecycle.c). */
void tp_run_dir_ensure(void);
int tp_ident_env(char *img, size_t ni, char *root, size_t nr);

#endif
