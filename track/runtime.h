/* What every file of libtprof.so shares while the program runs: the life-cycle state word, the
 * recursion guard, the configuration, warnings, tprof's own threads, and the table of the parts
 * that make up the library (track/runtime.c). Allocation that bypasses accounting is
 * track/rawalloc.h. */
#ifndef TPROF_RUNTIME_H
#define TPROF_RUNTIME_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "track/rawalloc.h"

#define TP_TLS         __attribute__((tls_model("initial-exec"))) __thread
#define tp_likely(x)   __builtin_expect(!!(x), 1)
#define tp_unlikely(x) __builtin_expect(!!(x), 0)

/* Life cycle: hooks forward untouched until RUNNING and after FINISHING (a hook that recorded
 * before the tables exist, or while the report reads them, would corrupt them). The state moves
 * in preload/lifecycle.c only. */
enum tp_state { TP_BOOT = 0, TP_INITING, TP_RUNNING, TP_FINISHING, TP_DONE, TP_DISABLED };
extern __attribute__((visibility("hidden"))) _Atomic int tp_state; /* hidden: one load */
static inline int tp_running(void)
{
    return atomic_load_explicit(&tp_state, memory_order_relaxed) == TP_RUNNING;
}

/* Per-thread recursion guard: set while tprof's own code runs on this thread, so that its
 * allocations (uthash, stdio, the dynamic loader's for dlmopen) are forwarded but never
 * recorded. */
extern TP_TLS int tp_guard;

/* The one way into tprof's own work from wherever it runs (a hook, one of tprof's threads, a
 * signal handler, a nested call that already holds the guard): the guard is set until
 * tp_own_end, which puts it back as it was, and gives the program back the errno it had. */
struct tp_own {
    int guard, err;
};
static inline struct tp_own tp_own_begin(void)
{
    struct tp_own o = {tp_guard, errno};
    tp_guard = 1;
    return o;
}
static inline void tp_own_end(struct tp_own o)
{
    tp_guard = o.guard;
    errno = o.err;
}

/* The report at the end in a hurry. A terminating signal that comes while it is written (the
 * program's exit, _exit or exec started it: preload/shim_signal.c) does not end the process at
 * once: the report is finished first, the process then dies by that signal. Until then the report
 * keeps to a deadline, tp_hurry_grace_ns after the signal: what it writes past the deadline is
 * cut (the trace's op calls: track/out/trace_file.c). Set from a signal handler, hence atomics. */
extern _Atomic int tp_hurry_signal;           /* the signal; 0: none came */
extern _Atomic uint64_t tp_hurry_deadline_ns; /* CLOCK_MONOTONIC; 0 until the signal came */
extern const uint64_t tp_hurry_grace_ns;      /* 100 ms */
/* 1 once a signal set a deadline and it has passed. */
int tp_hurry_late(void);

extern struct tp_config tp_cfg;
extern uint64_t tp_start_ns; /* CLOCK_MONOTONIC at load (at fork in a child) */

/* One line on stderr through write(2), prefixed "tprof: ", the whole line escaped once
 * (common/out/escape.c): values are passed as they are. No allocation. */
void tp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Start a detached thread of tprof's that blocks every signal (the program's signals are the
 * program's). 0, or -1 when it could not be created. */
int tp_start_thread(void *(*fn)(void *));
/* 1 on those threads (their waits are not the program's: track/ops/wait.c). */
extern TP_TLS int tp_own_thread;
/* Those threads running now; in a fork child, none. */
uint64_t tp_own_threads(void);
/* Is tid one of tprof's own threads (running now)? */
int tp_own_tid(int64_t tid);
void tp_own_threads_fork_child(void);

/* Periodic snapshots written so far: their number, total and longest wall time (ns). The
 * report says what they cost. */
void tp_snapshot_stats(uint64_t *n, uint64_t *ns, uint64_t *max_ns);
void tp_snapshot_add(uint64_t ns);

/* One part of the library as the life cycle sees it: what it sets up once the configuration is
 * read, what it does around fork, and the notes it adds to a report. Any function may be NULL.
 * notes_with_ops: the notes go right after the ops' own (a real function that was missing is
 * told beside the ops), not at the end of the parts' notes. */
struct tp_report;
struct tp_component {
    const char *name;
    void (*init)(void);
    void (*fork_prepare)(void);
    void (*fork_parent)(void);
    void (*fork_child)(void);
    void (*notes)(struct tp_report *);
    int notes_with_ops;
};

/* The table, set once before the library is initialised (preload/main.c, the one file that
 * names every part); its order is the order of init, fork_prepare and fork_child, reversed for
 * fork_parent. */
void tp_components_set(const struct tp_component *table, size_t n);
const struct tp_component *tp_components(size_t *n);
/* The notes of every part whose notes_with_ops is with_ops, in table order. */
void tp_components_notes(struct tp_report *r, int with_ops);

#endif
