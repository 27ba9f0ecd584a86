/* The time outside every op, summed over threads (report/render/render.h), and what the line that says
 * it counts of each thread. */
#include <stdint.h>
#include <string.h>

#include "report/analyze/analyze.h"
#include "report/render/render.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int is_main(const struct tp_report *r, const struct tp_thread *t)
{
    return r->program.pid > 0 && t->tid == r->program.pid;
}

/* Whether the report has what the time outside every op needs to leave the other threads' sleep
 * out: the main thread's share inside ops and the threads' CPU figures. */
static int outside_by_cpu(const struct tp_report *r)
{
    return r->program.main_in_ops_ns >= 0 && r->program.cpu_source &&
           strcmp(r->program.cpu_source, "none") != 0;
}

/* Whether the CPU samples say which part of the other threads' time was outside every op: some
 * landed on them (a sleeping helper gets none, and then its time on a CPU is all there is). */
static int by_samples(const struct tp_report *r)
{
    return r->samples.hz && r->samples.other_threads;
}

const char *tp_outside_basis(const struct tp_report *r, int *estimate)
{
    *estimate = 0;
    if (!outside_by_cpu(r) || !r->verdict.threads_time_ns)
        return NULL;
    int runq = !strcmp(r->program.cpu_source, "schedstat"), main = 0;
    for (size_t i = 0; i < r->nthreads; i++)
        main |= is_main(r, &r->threads[i]);
    *estimate = by_samples(r);
    if (main && *estimate)
        return runq ? "the main thread's wall time, the others' time on a CPU or waiting for one "
                      "but not working for another thread's op, by CPU samples"
                    : "the main thread's wall time, the others' time on a CPU but not working "
                      "for another thread's op, by CPU samples";
    if (*estimate)
        return runq ? "each one's time on a CPU or waiting for one but not working for another "
                      "thread's op, by CPU samples"
                    : "each one's time on a CPU but not working for another thread's op, by CPU "
                      "samples";
    if (main)
        return runq ? "the main thread's wall time, the others' time on a CPU or waiting for one"
                    : "the main thread's wall time, the others' time on a CPU";
    return runq ? "each one's time on a CPU or waiting for one" : "each one's time on a CPU";
}

/* The time outside every op. Per thread when the report has the threads' figures. The main
 * thread counts its wall time less its time inside ops: it runs the program's work, and its
 * waits outside ops (reading input, sleeping between steps) are time the program takes. Another
 * thread counts only its time on a CPU or waiting for one, and no more than its wall time outside
 * ops: a helper asleep in a condition wait, or a BLAS pool idle between calls, is not time the
 * program spends outside its ops; counting such a thread's whole life put darknet, whose ops take
 * 74% of the wall time, at 62% outside. Nor is a pool's worker computing for the main thread's
 * sgemm: with CPU samples, the other threads' time counts in the share of their samples taken
 * outside every op (track/out/sample.c: a sample on a thread with no op open is the running op's
 * when one runs); an sgemm-bound MLP with 2 OpenBLAS threads read 53% outside by time on a CPU
 * alone. The other threads' share inside ops is only known summed,
 * so the two bounds are taken over their sums. The threads' time it is a share of counts the
 * same way (threads_time_ns). A report without the main thread's share counts every thread's
 * whole life; without the threads' figures (a report before them, processes merged) it is the
 * program's time less each op's wall-clock time, which is 0 as soon as the ops of several
 * threads add up to the program's time: an OpenMP run read "0 ns" with 70 ms outside. */
void tp_outside_ops(struct tp_report *r, uint64_t denom, uint64_t wall_sum)
{
    struct tp_verdict *v = &r->verdict;
    const struct tp_program *p = &r->program;
    uint64_t tw = 0;
    for (size_t i = 0; i < r->nthreads; i++)
        tw = add_sat(tw, r->threads[i].wall_ns);
    if (r->merged_processes > 1 || !tw || (r->nops && !p->in_ops_ns)) {
        uint64_t in = add_sat(wall_sum, p->hooks_ns);
        v->outside_ops_ns = denom > in ? denom - in : 0;
        return;
    }
    v->threads_wall_ns = tw;
    if (!outside_by_cpu(r)) {
        v->outside_ops_ns = tw > p->in_ops_ns ? tw - p->in_ops_ns : 0;
        return;
    }
    uint64_t main_wall = 0, others_wall = 0, others_run = 0;
    int runq = !strcmp(p->cpu_source, "schedstat"); /* what the line says was counted */
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct tp_thread *t = &r->threads[i];
        if (is_main(r, t)) {
            main_wall = add_sat(main_wall, t->wall_ns);
            continue;
        }
        uint64_t run = add_sat(t->cpu_ns, runq ? t->runq_ns : 0);
        others_wall = add_sat(others_wall, t->wall_ns);
        others_run = add_sat(others_run, run < t->wall_ns ? run : t->wall_ns);
    }
    uint64_t main_in =
        (uint64_t)p->main_in_ops_ns < p->in_ops_ns ? (uint64_t)p->main_in_ops_ns : p->in_ops_ns;
    uint64_t others_in = p->in_ops_ns - main_in;
    uint64_t main_out = main_wall > main_in ? main_wall - main_in : 0;
    uint64_t others_out = others_wall > others_in ? others_wall - others_in : 0;
    uint64_t others_est = others_run;
    if (by_samples(r)) {
        /* a worker computing or spinning for the main thread's op is on a CPU, yet inside it */
        uint64_t k = r->samples.other_threads_outside;
        if (k > r->samples.other_threads)
            k = r->samples.other_threads;
        others_est = (uint64_t)((long double)others_run * (long double)k /
                                (long double)r->samples.other_threads);
    }
    v->outside_ops_ns = add_sat(main_out, others_out < others_est ? others_out : others_est);
    v->threads_time_ns = add_sat(main_wall, others_run);
}
