/* tprof merge: many processes (MPI ranks, forked workers) into one report. Ops and sites are
 * summed; per op the spread of total time across processes is kept (min, mean, max, and the
 * imbalance max/mean: what the slowest rank costs everyone waiting for it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "json_read.h"
#include "render.h"
#include "sitekey.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof merge FILE.json... -o OUT.json\n\n"
               "Sums ops (calls, times, FLOPs, bytes, shapes) and call sites across processes; per op\n"
               "keeps min / mean / max of total time across processes and imbalance = max / mean.\n"
               "The heap peak is the largest of the processes' peaks (their sum is in a note).\n");
}

static char *dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static struct tp_op *find_op(struct tp_report *r, const char *name)
{
    for (size_t i = 0; i < r->nops; i++)
        if (!strcmp(r->ops[i].name, name))
            return &r->ops[i];
    return NULL;
}

static void copy_shape(struct tp_shape *d, const struct tp_shape *s)
{
    *d = *s;
    d->desc = dup(s->desc);
}

static void add_op(struct tp_report *out, const struct tp_op *s, double *sumsq_stash)
{
    struct tp_op *d = find_op(out, s->name);
    if (!d) {
        d = &out->ops[out->nops++];
        memset(d, 0, sizeof *d);
        d->name = dup(s->name);
        d->kind = dup(s->kind);
        d->source = dup(s->source);
        d->latency.min = UINT64_MAX;
        d->proc_min_ns = INFINITY;
    }
    size_t idx = (size_t)(d - out->ops);
    uint64_t n0 = d->latency.n, n1 = s->latency.n;
    d->calls += s->calls;
    d->total_ns += s->total_ns;
    d->self_ns += s->self_ns;
    d->flops += s->flops;
    d->bytes += s->bytes;
    d->flops_known |= s->flops_known;
    d->warmup_calls += s->warmup_calls;
    d->warmup_ns += s->warmup_ns;
    d->alloc_bytes += s->alloc_bytes;
    d->alloc_count += s->alloc_count;
    /* Latency: exact n, min, max, mean and pooled variance; percentiles are the n-weighted mean
     * of each process's percentile (a note says so). */
    if (n1) {
        double N = (double)(n0 + n1);
        if (s->latency.min < d->latency.min)
            d->latency.min = s->latency.min;
        if (s->latency.max > d->latency.max)
            d->latency.max = s->latency.max;
        d->latency.p50 = (uint64_t)llround(((double)d->latency.p50 * n0 + (double)s->latency.p50 * n1) / N);
        d->latency.p95 = (uint64_t)llround(((double)d->latency.p95 * n0 + (double)s->latency.p95 * n1) / N);
        d->latency.p99 = (uint64_t)llround(((double)d->latency.p99 * n0 + (double)s->latency.p99 * n1) / N);
        d->latency.p50_ci_lo = (d->latency.p50_ci_lo * n0 + s->latency.p50_ci_lo * n1) / N;
        d->latency.p50_ci_hi = (d->latency.p50_ci_hi * n0 + s->latency.p50_ci_hi * n1) / N;
        /* sum of squares around 0, accumulated across inputs */
        double ss1 = (s->latency.stddev * s->latency.stddev) * (n1 > 1 ? (double)(n1 - 1) : 0) +
                     (double)n1 * s->latency.mean * s->latency.mean;
        sumsq_stash[idx] += ss1;
        d->latency.mean = (d->latency.mean * n0 + s->latency.mean * n1) / N;
        d->latency.n = n0 + n1;
        double var = N > 1 ? (sumsq_stash[idx] - N * d->latency.mean * d->latency.mean) / (N - 1) : 0;
        d->latency.stddev = var > 0 ? sqrt(var) : 0;
    }
    /* Spread of total time across processes. */
    d->nprocs++;
    double t = (double)s->total_ns;
    if (t < d->proc_min_ns)
        d->proc_min_ns = t;
    if (t > d->proc_max_ns)
        d->proc_max_ns = t;
    d->proc_mean_ns += t; /* divided by the number of processes at the end */
    for (size_t i = 0; i < s->nshapes; i++) {
        size_t j;
        for (j = 0; j < d->nshapes; j++) {
            struct tp_shape *x = &d->shapes[j];
            if (x->m == s->shapes[i].m && x->n == s->shapes[i].n && x->k == s->shapes[i].k &&
                x->transa == s->shapes[i].transa && x->transb == s->shapes[i].transb &&
                x->layout == s->shapes[i].layout)
                break;
        }
        if (j == d->nshapes) {
            struct tp_shape *ns = realloc(d->shapes, (d->nshapes + 1) * sizeof *ns);
            if (!ns)
                continue;
            d->shapes = ns;
            copy_shape(&d->shapes[d->nshapes++], &s->shapes[i]);
            continue;
        }
        d->shapes[j].calls += s->shapes[i].calls;
        d->shapes[j].total_ns += s->shapes[i].total_ns;
        d->shapes[j].flops += s->shapes[i].flops;
        d->shapes[j].bytes += s->shapes[i].bytes;
    }
}

static void add_site(struct tp_report *out, const struct tp_site *s, char (*keys)[1024])
{
    char k[1024];
    tp_site_key(s, k, sizeof k);
    struct tp_memory *m = &out->memory;
    size_t i;
    for (i = 0; i < m->nsites; i++)
        if (!strcmp(keys[i], k))
            break;
    if (i == m->nsites) {
        struct tp_site *d = &m->sites[m->nsites];
        memcpy(keys[m->nsites], k, sizeof k);
        m->nsites++;
        memset(d, 0, sizeof *d);
        d->frames = calloc(s->nframes ? s->nframes : 1, sizeof *d->frames);
        for (size_t f = 0; d->frames && f < s->nframes; f++) {
            d->frames[f] = s->frames[f];
            d->frames[f].function = dup(s->frames[f].function);
            d->frames[f].file = dup(s->frames[f].file);
            d->frames[f].module = dup(s->frames[f].module);
            d->nframes++;
        }
    }
    struct tp_site *d = &m->sites[i];
    d->allocs += s->allocs;
    d->frees += s->frees;
    d->bytes += s->bytes;
    d->peak_live_bytes += s->peak_live_bytes;
    d->live_at_peak_bytes += s->live_at_peak_bytes;
    d->live_at_exit_bytes += s->live_at_exit_bytes;
    d->live_at_exit_allocs += s->live_at_exit_allocs;
}

int tp_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    const char **files = calloc((size_t)argc, sizeof *files);
    int nf = 0;
    if (!files)
        return 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            free(files);
            return 0;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tprof merge: unknown option or missing value '%s' (try --help)\n", argv[i]);
            free(files);
            return 2;
        } else {
            files[nf++] = argv[i];
        }
    }
    if (!out || nf == 0) {
        usage(stderr);
        free(files);
        return 2;
    }
    struct tp_report *in = calloc((size_t)nf, sizeof *in);
    char err[512];
    size_t total_ops = 0, total_sites = 0;
    for (int i = 0; in && i < nf; i++) {
        if (tp_report_read_json(files[i], &in[i], err, sizeof err) < 0) {
            fprintf(stderr, "tprof merge: %s\n", err);
            for (int j = 0; j < i; j++)
                tp_report_free(&in[j]);
            free(in);
            free(files);
            return 2;
        }
        total_ops += in[i].nops;
        total_sites += in[i].memory.nsites;
    }
    struct tp_report r;
    tp_report_init(&r);
    r.tprof_version = dup(in[0].tprof_version);
    r.merged_processes = 0;
    for (int i = 0; i < nf; i++)
        r.merged_processes += in[i].merged_processes ? in[i].merged_processes : 1;
    r.program.argv = calloc(in[0].program.argc ? in[0].program.argc : 1, sizeof(char *));
    for (size_t i = 0; r.program.argv && i < in[0].program.argc; i++)
        r.program.argv[r.program.argc++] = dup(in[0].program.argv[i]);
    r.program.exe = dup(in[0].program.exe);
    r.program.host = dup(in[0].program.host);
    r.machine = in[0].machine;
    r.machine.source = dup(in[0].machine.source);
    r.ops = calloc(total_ops + 1, sizeof *r.ops);
    double *sumsq = calloc(total_ops + 1, sizeof *sumsq);
    r.memory.sites = calloc(total_sites + 1, sizeof *r.memory.sites);
    char(*keys)[1024] = calloc(total_sites + 1, sizeof *keys);
    uint64_t peak_sum = 0;
    for (int i = 0; i < nf && r.ops && sumsq && r.memory.sites && keys; i++) {
        struct tp_report *s = &in[i];
        if (s->program.wall_ns > r.program.wall_ns)
            r.program.wall_ns = s->program.wall_ns;
        r.program.threads += s->program.threads;
        r.partial |= s->partial;
        for (size_t j = 0; j < s->nnotes; j++)
            tp_report_note(&r, "%s: %s", files[i], s->notes[j]);
        for (size_t j = 0; j < s->nops; j++)
            add_op(&r, &s->ops[j], sumsq);
        struct tp_memory *m = &r.memory, *x = &s->memory;
        if (x->peak_bytes > m->peak_bytes) {
            m->peak_bytes = x->peak_bytes;
            m->peak_ns = x->peak_ns;
            free(m->peak_op);
            m->peak_op = dup(x->peak_op);
        }
        peak_sum += x->peak_bytes;
        m->allocs += x->allocs;
        m->frees += x->frees;
        m->bytes_allocated += x->bytes_allocated;
        m->live_at_exit_bytes += x->live_at_exit_bytes;
        m->live_at_exit_allocs += x->live_at_exit_allocs;
        if (x->peak_rss_bytes > m->peak_rss_bytes)
            m->peak_rss_bytes = x->peak_rss_bytes;
        m->unknown_frees += x->unknown_frees;
        m->failed_allocs += x->failed_allocs;
        m->alloc_ns += x->alloc_ns;
        m->persistent_bytes += x->persistent_bytes;
        m->transient_bytes += x->transient_bytes;
        m->nsites_total += x->nsites_total;
        for (size_t j = 0; j < x->nsites; j++)
            add_site(&r, &x->sites[j], keys);
        if (s->steps.count) {
            free(r.steps.name);
            r.steps.name = dup(s->steps.name);
            r.steps.count += s->steps.count;
            r.steps.warmup += s->steps.warmup;
        }
    }
    for (size_t i = 0; i < r.nops; i++) {
        struct tp_op *o = &r.ops[i];
        o->proc_mean_ns /= (double)o->nprocs;
        if (o->nprocs < (uint64_t)nf)
            o->proc_min_ns = 0; /* some processes never ran it */
        o->imbalance = o->proc_mean_ns > 0 ? o->proc_max_ns / o->proc_mean_ns : 0;
        if (o->latency.n == 0)
            o->latency.min = 0;
        o->nprocs = (uint64_t)nf;
        if (o->proc_mean_ns > 0) /* the mean over every process, those at zero included */
            o->proc_mean_ns = (double)o->total_ns / (double)nf,
            o->imbalance = o->proc_max_ns / o->proc_mean_ns;
    }
    r.memory.nsites_total = r.memory.nsites_total > r.memory.nsites ? r.memory.nsites_total : r.memory.nsites;
    tp_report_note(&r, "merged from %d processes: the heap peak is the largest process's; the "
                       "processes' peaks add up to %llu bytes; latency percentiles are call-weighted "
                       "means of each process's percentiles", nf, (unsigned long long)peak_sum);
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_json(&r, &b);
    int rc = 0;
    FILE *f = fopen(out, "we");
    if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f) != 0) {
        fprintf(stderr, "tprof merge: cannot write %s\n", out);
        rc = 2;
    }
    tp_buf_free(&b);
    tp_report_free(&r);
    for (int i = 0; i < nf; i++)
        tp_report_free(&in[i]);
    free(in);
    free(files);
    free(sumsq);
    free(keys);
    return rc;
}
