/* Where the time outside every op goes: a low-rate sample of the program counter, taken on CPU
 * time (ITIMER_PROF, SIGPROF), counted per address in a fixed table by an async-signal-safe
 * handler and put together per function when a report is written. */
#ifndef TPROF_SAMPLE_H
#define TPROF_SAMPLE_H

#include <signal.h>
#include <stdint.h>

struct tp_report;
typedef int (*tp_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/* Start sampling hz times per second of CPU time, installing SIGPROF's handler through ks (the
 * real sigaction). Nothing happens when hz is 0, when SIGPROF is not at its default action (the
 * program's, or ignored) or ITIMER_PROF is already armed (a profiler of the program's own, or a
 * timer inherited across exec). */
void tp_sample_start(int hz, tp_sigaction_fn ks);

/* Stop: disarm the timer and put SIGPROF's action back, unless the program has put its own in
 * the meantime (gprof's profil() does, without going through sigaction's shim), in which case
 * both are the program's and stay. Async-signal-safe. */
void tp_sample_stop(void);

/* The program is about to set SIGPROF's action itself (the sigaction and signal shims): stop
 * first, so that it finds and changes its own action, not ours. */
void tp_sample_yield(void);
/* While tprof samples, SIGPROF's action as the program left it (what a query of the action must
 * be told, so that a runtime that lists every signal's handler, as Python does at start, neither
 * sees tprof's nor stops the sampling): 1 and *old filled, or 0 when tprof does not sample. */
int tp_sample_view(struct sigaction *old);

/* The CPU time one sample stands for, in ns; 0 when tprof does not sample (and in a forked
 * child). */
uint64_t tp_sample_period_ns(void);

/* A forked child: its parent's timer is not inherited; its samples would be the parent's. The
 * child does not sample (its handler goes back to the program's action). */
void tp_sample_fork_child(void);

/* Fill r->samples and r->outside_ops (the functions the samples taken outside every op landed
 * in, most first) and add a note on how sampling went. */
void tp_sample_collect(struct tp_report *r);

#endif
