/* Whether the program had its CPUs (report/analyze/cpuverdict.c): the model's threads, the rule that
 * decides the CPU verdict line, and the line. */
#ifndef TPROF_CPUVERDICT_H
#define TPROF_CPUVERDICT_H

#include "report/report.h"

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

/* Release the report's threads (leaves nthreads 0). */
void tp_threads_free(struct tp_report *r);

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

/* The runtimes whose thread pools have a setting of their own, by the file name of a loaded
 * module: "openblas" (libopenblas*: OPENBLAS_NUM_THREADS), "openmp" (libgomp, libomp, libiomp5:
 * OMP_NUM_THREADS), "mkl" (libmkl_*: MKL_NUM_THREADS); NULL for any other module. */
const char *tp_thread_runtime(const char *path);

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

#endif
