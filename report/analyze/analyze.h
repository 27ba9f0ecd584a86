/* From the figures to the words: the verdict, the advice, the CPU and waiting verdicts: the one header of report/analyze/ for code outside it. */
#ifndef TPROF_REPORT_ANALYZE_ANALYZE
#define TPROF_REPORT_ANALYZE_ANALYZE

#include <stddef.h>

#include "common/buf.h"
#include "report/report.h"

/* What a user can do about the time outside every op: one decision table from what tprof knows
 * of each sampled function (report.h's struct tp_outside_fn: its kind, whether its module is
 * stripped, what was inlined into it), so that every line of advice is one that can be
 * followed. Pure: the text and HTML reports and `tprof report` say the same from the model. */
/* A sampled function that works: not a runtime's spin or yield loop (threads waiting). */
int tp_advice_works(const struct tp_outside_fn *f);

/* f's samples as a share of all the run's CPU samples (the verdict's shares are of the run). */
double tp_advice_run_share(const struct tp_report *r, const struct tp_outside_fn *f);

/* The working functions the samples outside every op landed in, into t: the first with the
 * number of samples the shares are of, then up to two more that took at least 5% of the samples
 * outside every op. Returns how many were named. */
size_t tp_advice_names(const struct tp_report *r, struct tp_buf *t);

/* The advice on the functions tp_advice_names names and on the waiting among the samples, one
 * sentence per row of the table, each starting with a space. */
void tp_advice_outside(const struct tp_report *r, struct tp_buf *t);

/* The rebuild flag that leaves out the hooks of the instrumented functions too short to time
 * (demoted: ops[].demoted), one sentence starting with a space, when what their hooks cost
 * (program.hook_ns a hook, two a call) is at least 1% of run_ns (the threads' time summed, or
 * the program's). Nothing otherwise. */
void tp_advice_exclude(const struct tp_report *r, uint64_t run_ns, struct tp_buf *t);

/* Whether the program had its CPUs (report/analyze/cpuverdict.c): the model's threads, the rule that
 * decides the CPU verdict line, and the line. */
/* One thread of the program: its figures when it exited, or at the report for a live one. */
struct tp_thread {
    int64_t tid;
    char *name;       /* its name (comm: 15 bytes at most), NULL unknown */
    uint64_t wall_ns; /* from its start (or tprof's) to its end (or the report) */
    uint64_t cpu_ns, runq_ns;
    uint64_t nvcsw, nivcsw; /* voluntary and involuntary context switches */
    int exited;             /* 1: ended before the report */
    /* Waiting for other threads (track/ops/wait.c): wall time in hooked waiting calls plus the CPU
     * time spinning in an OpenMP runtime (CPU samples: an estimate), and that spin part alone. */
    uint64_t wait_ns, wait_spin_ns;
    char *wait_spin_method; /* "samples", NULL when not sampled */
};

/* The line is said when the threads' run-queue delay is at least this share of their runnable
 * time (on a CPU or waiting for one) ... */
#define TP_CPU_WAIT_SHARE 0.20
/* ... and at least this long in all, so that a few milliseconds of scheduling noise in a short
 * run make no headline. */
#define TP_CPU_WAIT_MIN_NS 10000000ull

/* A thread is busy when it was runnable (on a CPU or waiting for one) at least this share of its
 * wall time: more busy threads than CPUs wait for each other, fewer do not crowd themselves. */
#define TP_CPU_BUSY_SHARE 0.5
/* The busy threads of threads[]. */
size_t tp_cpu_busy_threads(const struct tp_report *r);

/* The threads' run-queue delay over their runnable time, 0 when unknown (no schedstat figures,
 * nothing ran). */
double tp_cpu_wait_share(const struct tp_program *p);
/* 1 when the CPU verdict is said for these figures (the rule above), else 0. */
int tp_cpu_wait_rule(const struct tp_program *p);
/* The CPUs the process may use: its affinity mask, or the cgroup's quota where that is fewer; 0
 * unknown. */
double tp_cpus_available(const struct tp_program *p);
/* The text report's header line on the CPUs: those allowed, the load average, what the threads
 * got and waited; 0 (nothing written) for a report from before these figures. */
int tp_cpu_header(const struct tp_program *p, char *out, size_t n);
/* Set the verdict's cpu_wait_share and cpu_text (NULL unless the rule holds). */
void tp_cpu_verdict(struct tp_report *r);

/* Work or wait of each op (the figures track/ops/wait.c measures): the share of an op's time that its
 * threads spent waiting for other threads, the rule under which the verdict says so, and the
 * sentence. Pure: the text and HTML reports and `tprof report` all say the same from the model. */
/* The verdict names an op whose waiting is at least this share of its time ... */
#define TP_WAIT_SHARE 0.5
/* ... and at least this long: a few milliseconds at a barrier are no headline. */
#define TP_WAIT_MIN_NS 10000000ull

/* The samples outside every op that the verdict calls spinning: at least 1% of them. */
int tp_outside_spin_said(const struct tp_samples *s);
/* wait_ns over wait_ns + work_ns: 0 when both are 0 (nothing known). */
double tp_op_wait_share(const struct tp_op *o);
/* 1 when the share rests on an estimate (the spin, or the work, counted from CPU samples): the
 * reports mark it "~". */
int tp_op_wait_estimated(const struct tp_op *o);
/* 1 when the verdict names the op (the rule above). */
int tp_op_wait_rule(const struct tp_op *o);
/* Add s's work and waiting to d's (`tprof merge`): the figures add up, saturating; a method and
 * the calls' names are the first input's that has them (a report of a tprof before them has
 * none). */
void tp_op_wait_add(struct tp_op *d, const struct tp_op *s);
/* Set each op's wait_share and the verdict's wait_op and wait_text: the op with the most waiting
 * under the rule, NULL when none. */
void tp_wait_verdict(struct tp_report *r);

/* The memory ledger (memory.ledger, report/analyze/ledger.c) summed by part. */
enum {
    TP_LK_HEAP,
    TP_LK_ALLOC,
    TP_LK_FILE,
    TP_LK_ANON,
    TP_LK_STACKS,
    TP_LK_LIBS,
    TP_LK_TPROF,
    TP_LK_OTHER,
    TP_LK_UNEXPLAINED,
    TP_LEDGER_KINDS
};
/* The allocator row of the freed bytes it keeps (the recorder names it so). */
#define TP_LEDGER_RETAINED "freed, kept by the allocator"
/* Retention worth a word: this much and a fifth of the peak RSS. */
#define TP_LEDGER_RETAINED_MIN (16ull << 20)
/* tprof's own memory worth a word in the verdict: this much and a tenth of the peak RSS. */
#define TP_LEDGER_TPROF_MIN (16ull << 20)
/* Files the program maps worth a word beside the heap's persistent bytes. */
#define TP_LEDGER_FILES_MIN (1ull << 20)
struct tp_ledger_sum {
    uint64_t part[TP_LEDGER_KINDS], total, retained;
    uint64_t program_files; /* of part[TP_LK_FILE], the files the program mapped itself */
    const struct tp_ledger_row *file[2]; /* the two most resident files */
    const struct tp_ledger_row *anon;    /* the most resident anonymous row */
    const struct tp_ledger_row *libs;    /* the libraries' row */
};
void tp_ledger_sum(const struct tp_memory *m, struct tp_ledger_sum *s);
/* "peak RSS 81.0 MiB = heap 5.3 + model.bin (mapped file) 74.1 + ... (+0.0 unexplained)": the
 * parts in the total's unit, the heap first and the others largest first, those under 0.05 left
 * out. */
void tp_ledger_line(const struct tp_memory *m, struct tp_buf *t);
/* The advice when the allocator keeps TP_LEDGER_RETAINED_MIN or more, a fifth of the peak RSS or
 * more, of what the program freed: one clause, lower case; 1 when written. */
int tp_ledger_retention(const struct tp_memory *m, struct tp_buf *t);
/* The verdict's sentences on the RSS (each starting with a space): the part that outweighs the heap
 * (a mapped file, anonymous mappings, the libraries), tprof's own when large, the allocator's
 * retention. Nothing when there is no ledger. */
void tp_ledger_story(const struct tp_memory *m, struct tp_buf *t);

#endif
