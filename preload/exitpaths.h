/* Every way out of a process image (PITFALLS P8, P9): fatal and terminating signals, _exit,
 * exec. Each writes the report once through tp_finish(), then lets the program go the way it
 * would have gone without tprof. */
#ifndef TPROF_EXITPATHS_H
#define TPROF_EXITPATHS_H

void tp_exitpaths_init(void);
/* Write the report unless already written; 1 if this call wrote it. */
int tp_finish(const char *why);
/* An exec failed after tp_finish(): carry on recording (a later report replaces that one). */
void tp_resume_after_failed_exec(void);
long tp_ident_pid(void);

/* Provided by other parts; called from tp_init() and the fork handler. */
void tp_cyg_init(void);
void tp_ops_fork_child(void);

#endif
