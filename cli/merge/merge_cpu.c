/* `tprof merge` of the processes' CPU figures: time on a CPU and in the run queue add up over
 * the processes, and their threads are listed together, so that the CPU verdict of the merged
 * report (tp_analyze) judges all the processes' threads at once: the workers of a pool that
 * starved each other show as one run that waited for its CPUs. */
#include "cli/merge/merge.h"
#include "report/analyze/analyze.h"
#include "report/fields.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t add_capped(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - 1 - b ? UINT64_MAX - 1 : a + b;
}

/* How well a source measured: run-queue figures need schedstat in every input. */
static int source_rank(const char *s)
{
    if (s && !strcmp(s, "schedstat"))
        return 2;
    if (s && !strcmp(s, "stat"))
        return 1;
    return 0;
}

static const char *const source_name[] = {"none", "stat", "schedstat"};

static int by_tid(const void *x, const void *y)
{
    const struct tp_thread *a = x, *b = y;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Every string of a thread is its own copy (report/fields.h lists them). */
#define D_STR(f, dflt)                                                                             \
    if (s->f && !(d->f = strdup(s->f)))                                                            \
        ok = 0;
#define D_OTHER(f, dflt)
#define D_I64            D_OTHER
#define D_U64            D_OTHER
#define D_BOOL           D_OTHER
#define D_DBL            D_OTHER
#define D_NS             D_OTHER
#define DUP(KIND, f, dv) D_##KIND(f, dv)

static int copy_threads(const struct tp_report *in, size_t nin, struct tp_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < nin; i++)
        n += in[i].nthreads;
    if (!n)
        return 0;
    r->threads = calloc(n, sizeof *r->threads);
    if (!r->threads)
        return -1;
    for (size_t i = 0; i < nin; i++) {
        for (size_t j = 0; j < in[i].nthreads; j++) {
            struct tp_thread *d = &r->threads[r->nthreads++];
            const struct tp_thread *s = &in[i].threads[j];
            *d = *s;
            int ok = 1;
            TP_THREAD_FIELDS(DUP)
            if (!ok)
                return -1;
        }
    }
    qsort(r->threads, r->nthreads, sizeof *r->threads, by_tid);
    return 0;
}

/* The runtimes any process loaded, each once, in the first order met; NULL when no input says
 * (reports before the field). */
static int merge_runtimes(const struct tp_report *in, size_t nin, struct tp_program *p)
{
    size_t len = 0;
    int known = 0;
    for (size_t i = 0; i < nin; i++)
        if (in[i].program.thread_runtimes) {
            known = 1;
            len += strlen(in[i].program.thread_runtimes) + 1;
        }
    free(p->thread_runtimes);
    p->thread_runtimes = NULL;
    if (!known)
        return 0;
    char *out = calloc(len + 1, 1);
    if (!out)
        return -1;
    for (size_t i = 0; i < nin; i++) {
        const char *s = in[i].program.thread_runtimes;
        while (s && *s) {
            size_t n = strcspn(s, " ");
            int have = 0;
            for (const char *q = out; *q && !have; q += strcspn(q, " "), q += *q == ' ')
                have = strcspn(q, " ") == n && !strncmp(q, s, n);
            if (!have && n)
                snprintf(out + strlen(out), len + 1 - strlen(out), "%s%.*s", *out ? " " : "",
                         (int)n, s);
            s += n;
            s += *s == ' ';
        }
    }
    p->thread_runtimes = out;
    return 0;
}

int tp_merge_cpu(const struct tp_report *in, size_t nin, struct tp_report *r)
{
    struct tp_program *p = &r->program;
    int rank = 2;
    double hook_sum = 0;
    size_t hook_n = 0;
    for (size_t i = 0; i < nin; i++) {
        const struct tp_program *s = &in[i].program;
        p->cpu_ns = add_capped(p->cpu_ns, s->cpu_ns);
        p->runq_ns = add_capped(p->runq_ns, s->runq_ns);
        p->hooks_ns = add_capped(p->hooks_ns, s->hooks_ns);
        if (s->hook_ns > 0) { /* the processes that ran a hook: each measured its own cost */
            hook_sum += s->hook_ns;
            hook_n++;
        }
        int k = source_rank(s->cpu_source);
        rank = k < rank ? k : rank;
        if (s->load_avg > p->load_avg)
            p->load_avg = s->load_avg;
        if (s->cpus_allowed > p->cpus_allowed)
            p->cpus_allowed = s->cpus_allowed;
        /* the tightest quota any process ran under; 0 is none */
        if (s->cpu_quota > 0 && (p->cpu_quota == 0 || s->cpu_quota < p->cpu_quota))
            p->cpu_quota = s->cpu_quota;
    }
    p->hook_ns = hook_n ? hook_sum / (double)hook_n : 0;
    if (nin == 0)
        rank = 0;
    free(p->cpu_source);
    p->cpu_source = strdup(source_name[rank]);
    if (!p->cpu_source || merge_runtimes(in, nin, p) < 0)
        return -1;
    return copy_threads(in, nin, r);
}
