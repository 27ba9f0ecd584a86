/* tprof merge: many processes (MPI ranks, forked workers) into one report.
 *
 * Ops (by name) and call sites (by frames, cli/read/sitekey.c) are summed; per op the spread of its
 * total time across processes is kept: min, mean and max, and imbalance = max / mean, what the
 * slowest rank costs everyone who waits for it. A process that never ran an op counts as 0 in
 * its spread. Inputs may themselves be merged reports: they count as merged_processes
 * processes each, with their own spread.
 *
 * Latency is merged conservatively, since the histograms are not in the report: n is summed,
 * min and max are exact, the mean is exact (n-weighted) and the standard deviation is the exact
 * pooled one (within- and between-process variance); a percentile becomes the n-weighted mean
 * of the processes' percentiles, and the median's confidence interval the union of theirs.
 * A note says so. */
#include "cli/merge/merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/read/read.h"
#include "common/buf.h"
#include "report/analyze/analyze.h"
#include "report/peaks/peaks.h"

/* The largest figure the reader accepts: sums saturate here (and say so) rather than wrap. */
#define BIG (UINT64_MAX - 1)

struct merge {
    int saturated;
};

static uint64_t add(struct merge *g, uint64_t a, uint64_t b)
{
    if (a > BIG - b) {
        g->saturated = 1;
        return BIG;
    }
    return a + b;
}

/* A sum of figures that may be unknown (-1): unknown when either is. */
static int64_t add_known(struct merge *g, int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    uint64_t s = add(g, (uint64_t)a, (uint64_t)b);
    return s > INT64_MAX ? INT64_MAX : (int64_t)s;
}

/* ---- ops ---- */

struct opref {
    const struct tp_op *op;
    size_t input;
};

static int by_name_input(const void *x, const void *y)
{
    const struct opref *a = x, *b = y;
    int c = strcmp(a->op->name, b->op->name);
    return c ? c : a->input < b->input ? -1 : a->input > b->input;
}

static int same_shape(const struct tp_shape *a, const struct tp_shape *b)
{
    /* desc too: a shape named by a work entry's parameters has more than m, n and k */
    return a->m == b->m && a->n == b->n && a->k == b->k && a->transa == b->transa &&
           a->transb == b->transb && a->layout == b->layout &&
           !strcmp(a->desc ? a->desc : "", b->desc ? b->desc : "");
}

static int add_shapes(struct merge *g, struct tp_op *d, const struct tp_op *s)
{
    for (size_t i = 0; i < s->nshapes; i++) {
        const struct tp_shape *x = &s->shapes[i];
        size_t j = 0;
        while (j < d->nshapes && !same_shape(&d->shapes[j], x))
            j++;
        if (j == d->nshapes) {
            struct tp_shape *ns = realloc(d->shapes, (d->nshapes + 1) * sizeof *ns);
            if (!ns)
                return -1;
            d->shapes = ns;
            memset(&d->shapes[j], 0, sizeof d->shapes[j]);
            d->shapes[j] = *x;
            d->shapes[j].desc = tp_dup_or_null(x->desc);
            d->shapes[j].calls = d->shapes[j].total_ns = d->shapes[j].flops = d->shapes[j].bytes =
                0;
            d->nshapes++;
        }
        struct tp_shape *y = &d->shapes[j];
        y->calls = add(g, y->calls, x->calls);
        y->total_ns = add(g, y->total_ns, x->total_ns);
        y->flops = add(g, y->flops, x->flops);
        y->bytes = add(g, y->bytes, x->bytes);
    }
    return 0;
}

/* One merged op from refs[0..n) (one name, in input order). weight[i] is how many processes
 * input i stands for; nproc their sum over every input. */
static int merge_op(struct merge *g, const struct opref *refs, size_t n, const uint64_t *weight,
                    uint64_t nproc, struct tp_op *d)
{
    const struct tp_latency **parts = calloc(n, sizeof *parts);
    if (!parts)
        return -1;
    memset(d, 0, sizeof *d);
    d->name = tp_dup_or_null(refs[0].op->name);
    d->kind = tp_dup_or_null(refs[0].op->kind);
    d->source = tp_dup_or_null(refs[0].op->source);
    d->parent = tp_dup_or_null(refs[0].op->parent);
    struct tp_lat_acc lat = {0};
    uint64_t covered = 0;
    double pmin = INFINITY, pmax = 0;
    for (size_t i = 0; i < n;) {
        /* One input's share of this op (an input naming an op twice adds up). */
        size_t in = refs[i].input;
        uint64_t total = 0;
        const struct tp_op *first = refs[i].op;
        size_t entries = 0;
        for (; i < n && refs[i].input == in; i++, entries++) {
            const struct tp_op *s = refs[i].op;
            d->calls = add(g, d->calls, s->calls);
            d->total_ns = add(g, d->total_ns, s->total_ns);
            d->self_ns = add(g, d->self_ns, s->self_ns);
            d->wall_ns = add(g, d->wall_ns, s->wall_ns);
            d->self_wall_ns = add(g, d->self_wall_ns, s->self_wall_ns);
            d->flops = add(g, d->flops, s->flops);
            d->bytes = add(g, d->bytes, s->bytes);
            d->flops_known |= s->flops_known;
            d->warmup_calls = add(g, d->warmup_calls, s->warmup_calls);
            d->warmup_ns = add(g, d->warmup_ns, s->warmup_ns);
            d->demoted |= s->demoted;
            d->counted_calls = add(g, d->counted_calls, s->counted_calls);
            d->counted_est_ns = add(g, d->counted_est_ns, s->counted_est_ns);
            /* bounded in one process: the sum is bounded too */
            if (s->counted_est_method &&
                (!d->counted_est_method || strcmp(s->counted_est_method, "median") != 0)) {
                free(d->counted_est_method);
                d->counted_est_method = strdup(s->counted_est_method);
            }
            d->alloc_bytes = add(g, d->alloc_bytes, s->alloc_bytes);
            d->alloc_count = add(g, d->alloc_count, s->alloc_count);
            /* one parent only if every process had the same */
            if (d->parent && (!s->parent || strcmp(d->parent, s->parent))) {
                free(d->parent);
                d->parent = NULL;
            }
            tp_op_wait_add(d, s);
            tp_lat_add(&lat, &s->latency);
            parts[i] = &s->latency;
            if (add_shapes(g, d, s) < 0) {
                free(parts);
                return -1;
            }
            total = add(g, total, s->total_ns);
        }
        covered += weight[in];
        /* A merged input brings its own spread; a single process is one point. */
        double lo = (double)total, hi = (double)total;
        if (weight[in] > 1 && first->nprocs > 1 && entries == 1) {
            lo = first->proc_min_ns;
            hi = first->proc_max_ns;
        } else if (weight[in] > 1) {
            lo = hi = (double)total / (double)weight[in];
        }
        if (lo < pmin)
            pmin = lo;
        if (hi > pmax)
            pmax = hi;
    }
    tp_lat_finish(&lat, parts, n, &d->latency);
    free(parts);
    d->nprocs = nproc;
    d->proc_min_ns = covered < nproc ? 0 : pmin; /* some process never ran it */
    d->proc_max_ns = pmax;
    d->proc_mean_ns = (double)d->total_ns / (double)nproc;
    d->imbalance = d->proc_mean_ns > 0 ? d->proc_max_ns / d->proc_mean_ns : 0;
    return 0;
}

static int by_total(const void *x, const void *y)
{
    const struct tp_op *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    return strcmp(a->name, b->name);
}

static int merge_ops(struct merge *g, const struct tp_report *in, size_t nin,
                     const uint64_t *weight, uint64_t nproc, struct tp_report *r)
{
    size_t total = 0;
    for (size_t i = 0; i < nin; i++)
        total += in[i].nops;
    struct opref *refs = calloc(total + 1, sizeof *refs);
    r->ops = calloc(total + 1, sizeof *r->ops);
    if (!refs || !r->ops) {
        free(refs);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < in[i].nops; j++)
            refs[m++] = (struct opref){&in[i].ops[j], i};
    qsort(refs, m, sizeof *refs, by_name_input);
    int rc = 0;
    for (size_t i = 0; i < m && rc == 0;) {
        size_t j = i;
        while (j < m && !strcmp(refs[j].op->name, refs[i].op->name))
            j++;
        rc = merge_op(g, refs + i, j - i, weight, nproc, &r->ops[r->nops]);
        r->nops++;
        i = j;
    }
    free(refs);
    qsort(r->ops, r->nops, sizeof *r->ops, by_total);
    return rc;
}

/* ---- sites ---- */

static int by_live_at_peak(const void *x, const void *y)
{
    const struct tp_keyed_site *a = x, *b = y;
    if (a->site.live_at_peak_bytes != b->site.live_at_peak_bytes)
        return a->site.live_at_peak_bytes < b->site.live_at_peak_bytes ? 1 : -1;
    if (a->site.peak_live_bytes != b->site.peak_live_bytes)
        return a->site.peak_live_bytes < b->site.peak_live_bytes ? 1 : -1;
    return strcmp(a->key, b->key);
}

static int merge_sites(struct merge *g, const struct tp_report *in, size_t nin, struct tp_memory *m)
{
    size_t total = 0, dropped = 0;
    for (size_t i = 0; i < nin; i++) {
        total += in[i].memory.nsites;
        if (in[i].memory.nsites_total > in[i].memory.nsites)
            dropped += in[i].memory.nsites_total - in[i].memory.nsites;
    }
    /* All sites side by side (frames borrowed), then grouped by key. */
    struct tp_site *all = calloc(total + 1, sizeof *all);
    if (!all)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < in[i].memory.nsites; j++)
            all[n++] = in[i].memory.sites[j];
    struct tp_keyed_site *k;
    size_t nk;
    /* Site sums are not checked for overflow one by one: a site's figures are bounded by its
     * process's totals (allocs, bytes allocated), whose sums are. */
    if (tp_sites_by_key(all, n, &k, &nk) < 0) {
        free(all);
        return -1;
    }
    free(all);
    qsort(k, nk, sizeof *k, by_live_at_peak);
    m->sites = calloc(nk + 1, sizeof *m->sites);
    if (!m->sites) {
        tp_keyed_sites_free(k, nk);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < nk; i++) {
        struct tp_site *d = &m->sites[m->nsites++];
        *d = k[i].site;
        d->nframes = 0;
        d->frames = calloc(k[i].site.nframes + 1, sizeof *d->frames);
        if (!d->frames) {
            rc = -1;
            break;
        }
        for (size_t f = 0; f < k[i].site.nframes; f++) {
            const struct tp_frame *s = &k[i].site.frames[f];
            d->frames[f] = *s;
            d->frames[f].function = tp_dup_or_null(s->function);
            d->frames[f].file = tp_dup_or_null(s->file);
            d->frames[f].module = tp_dup_or_null(s->module);
            d->nframes++;
        }
    }
    tp_keyed_sites_free(k, nk);
    m->nsites_total = add(g, m->nsites, dropped);
    if (tp_merge_rollups(in, nin, m) < 0)
        rc = -1;
    return rc;
}

/* ---- the rest of the report ---- */

static int same_path(const struct tp_opstack *a, const struct tp_opstack *b)
{
    if (a->depth != b->depth)
        return 0;
    for (size_t i = 0; i < a->depth; i++)
        if (strcmp(a->ops[i] ? a->ops[i] : "", b->ops[i] ? b->ops[i] : ""))
            return 0;
    return 1;
}

/* Op stacks (TPROF_FOLDED runs): the same path of ops in several processes adds up, so that
 * `tprof report merged.json --format folded` draws the whole job. */
static int merge_opstacks(struct merge *g, const struct tp_report *in, size_t nin,
                          struct tp_report *r)
{
    size_t cap = 0;
    for (size_t i = 0; i < nin; i++) {
        cap += in[i].nopstacks;
        r->opstacks_dropped = add(g, r->opstacks_dropped, in[i].opstacks_dropped);
    }
    if (!cap)
        return 0;
    r->opstacks = calloc(cap, sizeof *r->opstacks);
    if (!r->opstacks)
        return -1;
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < in[i].nopstacks; j++) {
            const struct tp_opstack *s = &in[i].opstacks[j];
            size_t k = 0;
            while (k < r->nopstacks && !same_path(&r->opstacks[k], s))
                k++;
            struct tp_opstack *d = &r->opstacks[k];
            if (k == r->nopstacks) {
                d->ops = calloc(s->depth ? s->depth : 1, sizeof *d->ops);
                if (!d->ops)
                    return -1;
                for (size_t x = 0; x < s->depth; x++)
                    if (!(d->ops[x] = tp_dup_or_null(s->ops[x] ? s->ops[x] : "?")))
                        return -1;
                d->depth = s->depth;
                r->nopstacks++;
            }
            d->calls = add(g, d->calls, s->calls);
            d->total_ns = add(g, d->total_ns, s->total_ns);
            d->self_ns = add(g, d->self_ns, s->self_ns);
            d->flops = add(g, d->flops, s->flops);
        }
    return 0;
}

static int has_note(const struct tp_report *r, const char *note)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (!strcmp(r->notes[i], note))
            return 1;
    return 0;
}

static void merge_notes(const struct tp_report *in, size_t nin, const char *const *files,
                        struct tp_report *r)
{
    /* A note many ranks wrote is said once, with how many inputs said it. */
    for (size_t i = 0; i < nin; i++) {
        for (size_t j = 0; j < in[i].nnotes; j++) {
            const char *note = in[i].notes[j];
            int earlier = 0;
            for (size_t b = 0; b < j && !earlier; b++)
                earlier = !strcmp(in[i].notes[b], note);
            for (size_t a = 0; a < i && !earlier; a++)
                earlier = has_note(&in[a], note);
            if (earlier)
                continue;
            size_t count = 1;
            for (size_t a = i + 1; a < nin; a++)
                count += (size_t)has_note(&in[a], note);
            if (count == 1)
                tp_report_note(r, "%s: %s", files[i], note);
            else
                tp_report_note(r, "%s (in %zu of %zu inputs)", note, count, nin);
        }
    }
}

/* Steps: counts add up, the latency merges like an op's. */
static void merge_steps(struct merge *g, const struct tp_report *in, size_t nin,
                        struct tp_report *r)
{
    struct tp_lat_acc lat = {0};
    const struct tp_latency **parts = calloc(nin, sizeof *parts);
    size_t np = 0;
    for (size_t i = 0; parts && i < nin; i++) {
        const struct tp_steps *s = &in[i].steps;
        if (!s->count && !s->latency.n && !s->seen)
            continue;
        if (!r->steps.name) {
            r->steps.name = tp_dup_or_null(s->name);
            r->steps.window_first = s->window_first;
            r->steps.window_last = s->window_last;
            r->steps.runq_ns = r->steps.thread_cpu_ns = 0;
        }
        r->steps.count = add(g, r->steps.count, s->count);
        r->steps.seen = add(g, r->steps.seen, s->seen);
        r->steps.wall_ns = add(g, r->steps.wall_ns, s->wall_ns);
        r->steps.cpu_ns = add(g, r->steps.cpu_ns, s->cpu_ns);
        /* unknown in one process: unknown in the sum */
        r->steps.runq_ns = add_known(g, r->steps.runq_ns, s->runq_ns);
        r->steps.thread_cpu_ns = add_known(g, r->steps.thread_cpu_ns, s->thread_cpu_ns);
        r->steps.warmup = add(g, r->steps.warmup, s->warmup);
        tp_lat_add(&lat, &s->latency);
        parts[np++] = &s->latency;
    }
    tp_lat_finish(&lat, parts, np, &r->steps.latency);
    free(parts);
}

/* The first input's identity (argv, exe, host, rank, machine), as the merged run's. */
static void copy_identity(const struct tp_report *in0, struct tp_report *r)
{
    const struct tp_program *p0 = &in0->program;
    r->tprof_version = tp_dup_or_null(in0->tprof_version);
    r->program.argv = calloc(p0->argc + 1, sizeof *r->program.argv);
    for (size_t i = 0; r->program.argv && i < p0->argc; i++)
        r->program.argv[r->program.argc++] = tp_dup_or_null(p0->argv[i]);
    r->program.exe = tp_dup_or_null(p0->exe);
    r->program.host = tp_dup_or_null(p0->host);
    r->program.rank = p0->rank;
    tp_peaks_machine_copy(&r->machine, &in0->machine);
}

/* What the sums over processes say besides the figures. */
struct totals {
    uint64_t peak_sum, wall_sum;
    int peaks_differ;
    const struct tp_report *top; /* the input whose heap peaked highest */
};

/* Program and memory figures: wall time and the peak are the largest process's, counts add up. */
static void merge_program(struct merge *g, const struct tp_report *in, size_t nin,
                          struct tp_report *r, struct totals *t)
{
    struct tp_memory *m = &r->memory;
    t->top = &in[0];
    for (size_t i = 0; i < nin; i++) {
        const struct tp_report *s = &in[i];
        const struct tp_memory *x = &s->memory;
        if (s->program.wall_ns > r->program.wall_ns)
            r->program.wall_ns = s->program.wall_ns;
        t->wall_sum = add(g, t->wall_sum, s->program.wall_ns);
        if (s->program.start_unix_ns &&
            (!r->program.start_unix_ns || s->program.start_unix_ns < r->program.start_unix_ns))
            r->program.start_unix_ns = s->program.start_unix_ns;
        r->program.threads = add(g, r->program.threads, s->program.threads);
        r->partial |= s->partial;
        t->peaks_differ |= s->machine.peak_gflops != in[0].machine.peak_gflops ||
                           s->machine.peak_gbps != in[0].machine.peak_gbps;
        if (x->peak_bytes > t->top->memory.peak_bytes)
            t->top = s;
        t->peak_sum = add(g, t->peak_sum, x->peak_bytes);
        m->allocs = add(g, m->allocs, x->allocs);
        m->frees = add(g, m->frees, x->frees);
        m->bytes_allocated = add(g, m->bytes_allocated, x->bytes_allocated);
        m->live_at_exit_bytes = add(g, m->live_at_exit_bytes, x->live_at_exit_bytes);
        m->live_at_exit_allocs = add(g, m->live_at_exit_allocs, x->live_at_exit_allocs);
        m->live_at_exit_program_bytes =
            add(g, m->live_at_exit_program_bytes, x->live_at_exit_program_bytes);
        m->live_at_exit_program_allocs =
            add(g, m->live_at_exit_program_allocs, x->live_at_exit_program_allocs);
        m->live_at_exit_system_bytes =
            add(g, m->live_at_exit_system_bytes, x->live_at_exit_system_bytes);
        m->live_at_exit_system_allocs =
            add(g, m->live_at_exit_system_allocs, x->live_at_exit_system_allocs);
        m->live_at_exit_suppressed_bytes =
            add(g, m->live_at_exit_suppressed_bytes, x->live_at_exit_suppressed_bytes);
        m->live_at_exit_suppressed_allocs =
            add(g, m->live_at_exit_suppressed_allocs, x->live_at_exit_suppressed_allocs);
        m->live_at_exit_interpreter_bytes =
            add(g, m->live_at_exit_interpreter_bytes, x->live_at_exit_interpreter_bytes);
        m->live_at_exit_interpreter_allocs =
            add(g, m->live_at_exit_interpreter_allocs, x->live_at_exit_interpreter_allocs);
        if (x->peak_rss_bytes > m->peak_rss_bytes)
            m->peak_rss_bytes = x->peak_rss_bytes;
        m->unknown_frees = add(g, m->unknown_frees, x->unknown_frees);
        m->failed_allocs = add(g, m->failed_allocs, x->failed_allocs);
        m->alloc_ns = add(g, m->alloc_ns, x->alloc_ns);
        /* a sampled process makes the merged sites estimates (the first one's mean is named) */
        if (x->sampling.mean_bytes && !m->sampling.mean_bytes) {
            m->sampling.mean_bytes = x->sampling.mean_bytes;
            m->sampling.seed = x->sampling.seed;
        }
        m->sampling.samples = add(g, m->sampling.samples, x->sampling.samples);
    }
    /* The peak and what it is made of come from the process that peaked highest, so that
     * persistent + transient still describe peak_bytes. */
    m->peak_bytes = t->top->memory.peak_bytes;
    m->peak_ns = t->top->memory.peak_ns;
    m->peak_op = tp_dup_or_null(t->top->memory.peak_op);
    m->persistent_bytes = t->top->memory.persistent_bytes;
    m->transient_bytes = t->top->memory.transient_bytes;
    m->lifetime_unit = tp_dup_or_null(t->top->memory.lifetime_unit);
    m->alloc_ns_method = tp_dup_or_null(t->top->memory.alloc_ns_method);
    m->lifetime_step = tp_dup_or_null(t->top->memory.lifetime_step);
    /* and so does the heap over time, which holds that peak */
    const struct tp_memory *top = &t->top->memory;
    if (top->nseries && (m->series = malloc(top->nseries * sizeof *m->series))) {
        for (size_t i = 0; i < top->nseries; i++) {
            m->series[i] = top->series[i];
            m->series[i].op = tp_dup_or_null(top->series[i].op);
        }
        m->nseries = top->nseries;
    }
}

int tp_merge_reports(const struct tp_report *in, size_t nin, const char *const *files,
                     struct tp_report *r)
{
    struct merge g = {0};
    uint64_t *weight = calloc(nin, sizeof *weight), nproc = 0;
    if (!weight)
        return -1;
    for (size_t i = 0; i < nin; i++) {
        weight[i] = in[i].merged_processes ? in[i].merged_processes : 1;
        nproc = add(&g, nproc, weight[i]);
    }
    tp_report_init(r);
    r->merged_processes = nproc;
    copy_identity(&in[0], r);
    struct totals t = {0, 0, 0, NULL};
    merge_program(&g, in, nin, r, &t);
    merge_steps(&g, in, nin, r);
    merge_notes(in, nin, files, r);
    int rc = tp_merge_cpu(in, nin, r);
    if (rc == 0)
        rc = merge_ops(&g, in, nin, weight, nproc, r);
    if (rc == 0)
        rc = merge_sites(&g, in, nin, &r->memory);
    if (rc == 0)
        rc = merge_opstacks(&g, in, nin, r);
    if (rc == 0)
        rc = tp_merge_modules(in, nin, r);
    free(weight);
    tp_report_note(r,
                   "merged from %llu processes: the heap peak is the largest process's (%s); "
                   "the processes' peaks add up to %llu bytes and their wall times to %llu ns; "
                   "call sites' figures are sums over the processes; latency percentiles are "
                   "means of each process's percentiles weighted by its samples",
                   (unsigned long long)nproc, files[t.top - in], (unsigned long long)t.peak_sum,
                   (unsigned long long)t.wall_sum);
    if (t.peaks_differ)
        tp_report_note(r, "the inputs name different machine peaks; the roofline uses those of %s",
                       files[0]);
    if (g.saturated)
        tp_report_note(r, "some sums exceeded 2^64-1 and were capped");
    return rc;
}
