/* Report files (track/out/output.c): named for this process image, written whole and put in place
 * without taking the place of another process's report. */
#ifndef TPROF_OUTPUT_H
#define TPROF_OUTPUT_H

#include <stdint.h>

/* Who this process image is in the profiled process tree (preload/lifecycle.c finds out); it
 * decides the report files' names. */
struct tp_ident {
    long pid;
    int is_root;   /* the process the user started (not a fork child or a spawned program) */
    int image_seq; /* how many exec's this pid went through before this image */
    long root_pid;
    uint64_t run_start_ns; /* CLOCK_MONOTONIC when the root started: the run's age, for names */
};
void tp_output_set_ident(const struct tp_ident *id);

/* Before the program's main: an output that cannot be written is said now (one line to warn),
 * not after hours of running, and replaced by its default (common/config.h). */
void tp_output_check(void (*warn)(const char *line));

/* Build the report and write every output (the report, the JSON, the trace and the folded
 * stacks). Called with the guard held, one report at a time. A report that nothing would be
 * written of (tp_output_wanted 0) is not built. */
void tp_write_reports(const char *why, int sig_seq);
/* 1 when a report on `why` ("exit", "snapshot", "exec", a signal) writes something: a file, or
 * the text on stderr, which only the root process's exit, exec and signal reports write. */
int tp_output_wanted(const char *why);

/* A terminating signal ends the process while a report is written: remove its temporary file
 * (async-signal-safe). */
void tp_report_abandon(void);

/* Exec (preload/shim_exit.c): the program about to be started, for the report this image writes
 * as it execs (NULL: by file descriptor); called before the report. That report, when the image
 * did something of its own (track/out/output_exec.c), is named by the image, and the plain names
 * are left to the image exec starts. */
void tp_output_exec_target(const char *path);
/* The exec failed: the image goes on, and the report it wrote as it exec'd is removed (the one it
 * writes at the end, under the plain names, replaces it). */
void tp_output_exec_failed(void);

/* A forked child wrote none of its parent's files. */
void tp_output_fork_child(void);

#endif
