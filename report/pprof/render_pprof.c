/* pprof profiles: the heap's call sites and the ops' stacks as gzipped profile.proto messages
 * (report/pprof/profile.proto), which `go tool pprof` (its -http UI, -diff_base, -top),
 * speedscope, the Perfetto UI and continuous-profiling servers (Parca, Pyroscope) read.
 *
 * The heap profile has one sample per call site, its stack the site's frames (the caller of
 * malloc first), with four values: alloc_objects and alloc_space (every allocation, bytes as
 * requested), leak_space (live at exit) and peak_space (live when the whole heap peaked), the
 * last the default, as heap profilers put the in-use figure last. Sites the JSON report rolled
 * up are one sample each under "[more call sites]", with the function that called the allocator;
 * what no site holds (the sums of the sites fall short of the report's totals) is one sample
 * under "[no call site]": each value's total is then the report's own figure to the byte.
 *
 * The time profile has one sample per stack of nested ops, the ops as frames (the innermost
 * first), with calls, flops and self (nanoseconds, the default): an op's samples add up to its
 * calls, FLOPs and self time in the report (what its stacks lack, a demoted op's counted calls
 * say, is one sample under "[calls off the stacks]"). The time outside every op is one more sample under
 * "[outside ops]", split among the functions the CPU samples found there (those the report names)
 * in proportion to their samples, each with its sample count as a label.
 *
 * Frames of the heap profile are locations with the frame's address (load bias + offset) in the
 * mapping of its module (file, build-id, address range) and one line per function of its inline
 * chain, the innermost first; functions have their source file, lines their line. All names are
 * resolved already, so the mappings say so (has_functions ...) and readers never symbolise.
 *
 * The profile itself (tables, ids, labels, gzip) is pprof_build.c's: this file says what of the
 * report goes in it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/out/out.h"
#include "report/pprof/pprof_build.h"
#include "report/pprof/pprof.h"
#include "report/siterollup.h"

/* A frame's module (its path as the frame names it) and the report's module it is, or NULL. */
struct modof {
    const char *k;
    const struct tp_modinfo *m;
    UT_hash_handle hh;
};

/* One rendering: the builder, the report, the labels every sample has, the report's modules'
 * files with their links resolved, looked up once each (NULL: not yet; "" none), and the module
 * each frame's module was found to be (python3 with torch: 21,000 frames in 317 modules). */
struct ctx {
    struct tp_pprof *p;
    const struct tp_report *r;
    struct tp_pprof_label run[2]; /* program, pid */
    char **real;
    struct modof *found;
};

static int sample(struct ctx *c, const uint64_t *ids, size_t n, const int64_t *values,
                  const struct tp_pprof_label *extra)
{
    struct tp_pprof_label l[3] = {c->run[0], c->run[1]};
    if (extra)
        l[2] = *extra;
    return tp_pprof_sample(c->p, ids, n, values, l, extra ? 3 : 2);
}

/* ---- what both profiles say about the run ---- */

static uint64_t mapping(struct ctx *c, const char *module, uint64_t *base);

static void header(struct ctx *c, const char *what)
{
    const struct tp_report *r = c->r;
    const struct tp_program *g = &r->program;
    const char *prog = g->exe ? g->exe : g->argc && g->argv[0] ? g->argv[0] : "?";
    /* every sample says which program and process it is from: profiles of several processes
     * that a reader merges stay apart by -tagfocus */
    c->run[0] = (struct tp_pprof_label){"program", prog, 0, NULL};
    c->run[1] = (struct tp_pprof_label){"pid", NULL, g->pid, NULL};
    tp_pprof_times(c->p, (int64_t)g->start_unix_ns, (int64_t)g->wall_ns);
    struct tp_buf cmd;
    tp_buf_init(&cmd);
    for (size_t i = 0; i < g->argc; i++)
        tp_buf_printf(&cmd, "%s%s", i ? " " : "", g->argv[i] ? g->argv[i] : "");
    tp_pprof_comment(c->p, tp_pprof_printf(c->p, "tprof %s: %s of %s",
                                           r->tprof_version ? r->tprof_version : "?", what,
                                           cmd.len ? tp_buf_str(&cmd) : prog));
    tp_buf_free(&cmd);
    tp_pprof_comment(c->p,
                     tp_pprof_printf(c->p, "pid %lld on %s, wall time %llu ns", (long long)g->pid,
                                     g->host ? g->host : "?", (unsigned long long)g->wall_ns));
    if (r->merged_processes)
        tp_pprof_comment(c->p, tp_pprof_printf(c->p, "merged from %llu processes",
                                               (unsigned long long)r->merged_processes));
    /* the main program's mapping first, as readers expect (pprof names the profile by it) */
    uint64_t base;
    if (r->nmodules && r->modules[0].path)
        mapping(c, r->modules[0].path, &base);
}

/* ---- the heap ---- */

static const char *real_path(struct ctx *c, size_t i)
{
    if (!c->real[i]) {
        char *x = c->r->modules[i].path ? realpath(c->r->modules[i].path, NULL) : NULL;
        c->real[i] = tp_pprof_printf(c->p, "%s", x ? x : "");
        free(x);
    }
    return c->real[i] ? c->real[i] : "";
}

/* The module a frame's module is: frames name the file the symboliser opened (links resolved:
 * /usr/lib/x86_64-linux-gnu/libc.so.6), the module list the file as the loader named it
 * (/lib/x86_64-linux-gnu/libc.so.6, libopenblas.so.0 for libopenblasp-r0.3.21.so). The same
 * path, else the same file once links are resolved (where the report is made, on the machine
 * that ran the program), else the same base name. */
static const struct tp_modinfo *find_module(struct ctx *c, const char *module)
{
    const struct tp_report *r = c->r;
    for (size_t i = 0; i < r->nmodules; i++)
        if (r->modules[i].path && !strcmp(r->modules[i].path, module))
            return &r->modules[i];
    for (size_t i = 0; i < r->nmodules; i++)
        if (!strcmp(real_path(c, i), module))
            return &r->modules[i];
    const char *base = tp_base_name(module, "");
    for (size_t i = 0; i < r->nmodules; i++)
        if (r->modules[i].path && !strcmp(tp_base_name(r->modules[i].path, "?"), base))
            return &r->modules[i];
    return NULL;
}

static const struct tp_modinfo *module_of(struct ctx *c, const char *module)
{
    struct modof *e = NULL;
    HASH_FIND_STR(c->found, module, e);
    if (e)
        return e->m;
    const struct tp_modinfo *m = find_module(c, module);
    e = malloc(sizeof *e);
    if (e) {
        e->k = module;
        e->m = m;
        HASH_ADD_KEYPTR(hh, c->found, e->k, strlen(e->k), e);
    }
    return m;
}

/* The mapping of a frame's module, and the module's load bias (0 when the report's module list
 * does not have it: the frame's address is then its offset). 0 for no module. */
static uint64_t mapping(struct ctx *c, const char *module, uint64_t *base)
{
    *base = 0;
    if (!module)
        return 0;
    const struct tp_modinfo *m = module_of(c, module);

    if (!m)
        return tp_pprof_mapping(c->p, module, 0, 0, NULL);
    *base = m->base;
    return tp_pprof_mapping(c->p, module, m->lo, m->hi, m->build_id);
}

/* The location of frames f[0..n): an inline chain (every frame but the last inlined into the
 * next) at one return address. */
static uint64_t frame_location(struct ctx *c, const struct tp_frame *f, size_t n)
{
    struct tp_buf k;
    tp_buf_init(&k);
    tp_buf_printf(&k, "frame\x1f%s\x1f%llx", f->module ? f->module : "",
                  (unsigned long long)f->offset);
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&k, "\x1f%s\x1f%s\x1f%d", f[i].function ? f[i].function : "",
                      f[i].file ? f[i].file : "", f[i].line);
    char *key = tp_buf_ok(&k) ? tp_pprof_printf(c->p, "%s", tp_buf_str(&k)) : NULL;
    tp_buf_free(&k);
    uint64_t id = tp_pprof_location_find(c->p, key);
    if (id || !key)
        return id;
    struct tp_pprof_line *lines = calloc(n, sizeof *lines);
    if (!lines)
        return 0;
    for (size_t i = 0; i < n; i++) {
        /* a frame no symbol covers is named as the folded stacks name it: module+offset */
        const char *name = f[i].function;
        if (!name)
            name = tp_pprof_printf(c->p, "%s+0x%llx", tp_base_name(f[i].module, "?"),
                                   (unsigned long long)f[i].offset);
        lines[i].function = name ? tp_pprof_function(c->p, name, f[i].file) : 0;
        lines[i].line = f[i].line;
    }
    uint64_t base, map = mapping(c, f->module, &base);
    id = tp_pprof_location(c->p, key, map, base + f->offset, lines, n);
    free(lines);
    return id;
}

static void heap_site(struct ctx *c, const struct tp_site *s, uint64_t *ids)
{
    size_t n = 0;
    for (size_t d = 0; d < s->nframes;) {
        size_t e = d;
        while (e + 1 < s->nframes && s->frames[e].inlined)
            e++;
        ids[n++] = frame_location(c, &s->frames[d], e - d + 1);
        d = e + 1;
    }
    int64_t v[4] = {(int64_t)s->allocs, (int64_t)s->bytes, (int64_t)s->live_at_exit_bytes,
                    (int64_t)s->live_at_peak_bytes};
    sample(c, ids, n, v, NULL);
}

static uint64_t sub(uint64_t total, uint64_t part)
{
    return total > part ? total - part : 0;
}

static void render_heap(struct ctx *c)
{
    static const char *const types[] = {"alloc_objects", "alloc_space", "leak_space", "peak_space"};
    static const char *const units[] = {"count", "bytes", "bytes", "bytes"};
    const struct tp_memory *m = &c->r->memory;
    tp_pprof_types(c->p, types, units, 4, "space", "bytes");
    header(c, "heap profile");
    tp_pprof_comment(
        c->p,
        tp_pprof_printf(c->p,
                        "peak_space: bytes live when the heap peaked (%llu bytes, %llu ns into the "
                        "run%s%s); leak_space: live at exit; alloc_space and alloc_objects: every "
                        "allocation, bytes as requested",
                        (unsigned long long)m->peak_bytes, (unsigned long long)m->peak_ns,
                        m->peak_op ? ", inside " : "", m->peak_op ? m->peak_op : ""));
    size_t most = 1;
    for (size_t i = 0; i < m->nsites; i++)
        most = m->sites[i].nframes > most ? m->sites[i].nframes : most;
    uint64_t *ids = calloc(most, sizeof *ids);
    if (!ids)
        return;
    uint64_t sum[4] = {0};
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        heap_site(c, s, ids);
        sum[0] += s->allocs, sum[1] += s->bytes, sum[2] += s->live_at_exit_bytes;
        sum[3] += s->live_at_peak_bytes;
    }
    free(ids);
    uint64_t more = m->nrollups ? tp_pprof_name_location(c->p, "[more call sites]") : 0;
    for (size_t i = 0; i < m->nrollups; i++) {
        const struct tp_site_rollup *u = &m->rollups[i];
        const char *fn =
            u->function ? u->function : tp_pprof_printf(c->p, "[%s]", tp_base_name(u->module, "?"));
        uint64_t two[2] = {tp_pprof_name_location(c->p, fn), more};
        int64_t v[4] = {(int64_t)u->allocs, (int64_t)u->bytes, (int64_t)u->live_at_exit_bytes,
                        (int64_t)u->live_at_peak_bytes};
        struct tp_pprof_label sites = {"sites", NULL, (int64_t)u->sites, "count"};
        sample(c, two, 2, v, &sites);
        sum[0] += u->allocs, sum[1] += u->bytes, sum[2] += u->live_at_exit_bytes;
        sum[3] += u->live_at_peak_bytes;
    }
    int64_t rest[4] = {(int64_t)sub(m->allocs, sum[0]), (int64_t)sub(m->bytes_allocated, sum[1]),
                       (int64_t)sub(m->live_at_exit_bytes, sum[2]),
                       (int64_t)sub(m->peak_bytes, sum[3])};
    if (rest[0] || rest[1] || rest[2] || rest[3]) {
        uint64_t none = tp_pprof_name_location(c->p, "[no call site]");
        sample(c, &none, 1, rest, NULL);
    }
}

/* ---- op time ---- */

static const char *op_kind(const struct tp_report *r, const char *name)
{
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].name && !strcmp(r->ops[i].name, name))
            return r->ops[i].kind;
    return NULL;
}

/* The time outside every op: under "[outside ops]", the functions the CPU samples named there,
 * each given its samples' share of the time, rounded down; the root's own is the rest, so that
 * they add up to the time exactly. */
static void render_outside(struct ctx *c)
{
    const struct tp_report *r = c->r;
    uint64_t ns = r->verdict.outside_ops_ns, total = r->samples.outside_ops, given = 0, seen = 0;
    uint64_t root = tp_pprof_name_location(c->p, "[outside ops]");
    for (size_t i = 0; i < r->noutside_ops; i++)
        seen += r->outside_ops[i].samples;
    if (seen > total)
        total = seen; /* a merged report's counts: the functions' own sum */
    for (size_t i = 0; i < r->noutside_ops && total; i++) {
        const struct tp_outside_fn *f = &r->outside_ops[i];
        if (!f->samples)
            continue;
        uint64_t share = (uint64_t)((unsigned __int128)ns * f->samples / total);
        const char *name =
            f->name ? f->name : tp_pprof_printf(c->p, "[%s]", tp_base_name(f->module, "?"));
        uint64_t two[2] = {tp_pprof_name_location(c->p, name), root};
        int64_t v[3] = {0, 0, (int64_t)share};
        struct tp_pprof_label n = {"cpu_samples", NULL, (int64_t)f->samples, "count"};
        sample(c, two, 2, v, &n);
        given += share;
    }
    int64_t v[3] = {0, 0, (int64_t)(ns - given)};
    if (ns - given || !r->noutside_ops)
        sample(c, &root, 1, v, NULL);
}

/* Calls of an op that no recorded stack holds: a demoted op's calls after its first ones are
 * counted, not timed (their time is in the ops around them); calls made while the op-stack table
 * was full are left out of it; a run that recorded no stacks at all has each op here whole. Each
 * such op is one sample under "[calls off the stacks]" with what its stacks lack of its calls,
 * FLOPs and self time, and why as a label, so that an op's samples add up to its figures in the
 * report. */
static void render_unstacked(struct ctx *c)
{
    const struct tp_report *r = c->r;
    uint64_t root = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const struct tp_op *o = &r->ops[i];
        uint64_t calls = 0, flops = 0, self = 0;
        for (size_t j = 0; j < r->nopstacks; j++) {
            const struct tp_opstack *s = &r->opstacks[j];
            const char *leaf = s->depth ? s->ops[s->depth - 1] : NULL;
            if (leaf && o->name && !strcmp(leaf, o->name)) {
                calls += s->calls;
                flops += s->flops;
                self += s->self_ns;
            }
        }
        if (!o->name || (calls >= o->calls && flops >= o->flops && self >= o->self_ns))
            continue;
        if (!root)
            root = tp_pprof_name_location(c->p, "[calls off the stacks]");
        uint64_t two[2] = {tp_pprof_name_location(c->p, o->name), root};
        int64_t v[3] = {(int64_t)sub(o->calls, calls), (int64_t)sub(o->flops, flops),
                        (int64_t)sub(o->self_ns, self)};
        const char *why = !r->nopstacks      ? "no op stacks were recorded"
                          : o->counted_calls ? "demoted: counted, not timed"
                                             : "the op-stack table was full";
        struct tp_pprof_label l = {"why", why, 0, NULL};
        sample(c, two, 2, v, &l);
    }
}

static void render_time(struct ctx *c)
{
    static const char *const types[] = {"calls", "flops", "self"};
    static const char *const units[] = {"count", "count", "nanoseconds"};
    const struct tp_report *r = c->r;
    tp_pprof_types(c->p, types, units, 3, "self", "nanoseconds");
    header(c, "op-time profile");
    tp_pprof_comment(c->p, "self: time in the innermost op of each stack of nested ops, summed "
                           "over threads; calls and flops: that op's calls and FLOPs on that "
                           "stack; [outside ops]: the threads' time in no op, by CPU samples; "
                           "[calls off the stacks]: an op's calls no stack holds (label why)");
    size_t most = 1;
    for (size_t i = 0; i < r->nopstacks; i++)
        most = r->opstacks[i].depth > most ? r->opstacks[i].depth : most;
    uint64_t *ids = calloc(most, sizeof *ids);
    if (!ids)
        return;
    for (size_t i = 0; i < r->nopstacks; i++) {
        const struct tp_opstack *s = &r->opstacks[i];
        if (!s->depth)
            continue;
        for (size_t d = 0; d < s->depth; d++) /* the innermost op is the leaf */
            ids[s->depth - 1 - d] = tp_pprof_name_location(c->p, s->ops[d] ? s->ops[d] : "?");
        int64_t v[3] = {(int64_t)s->calls, (int64_t)s->flops, (int64_t)s->self_ns};
        const char *kind = s->ops[s->depth - 1] ? op_kind(r, s->ops[s->depth - 1]) : NULL;
        struct tp_pprof_label k = {"kind", kind, 0, NULL};
        sample(c, ids, s->depth, v, kind ? &k : NULL);
    }
    free(ids);
    render_unstacked(c);
    render_outside(c);
}

int tp_render_pprof(const struct tp_report *r, enum tp_pprof_kind kind, struct tp_buf *b)
{
    /* The most each table may need: a location per frame (or op on a stack), and per frame a
     * function, its name made up, its file; a mapping per module and frame; a sample per site,
     * row, stack or function outside ops, and the made-up roots. */
    size_t frames = 0, samples;
    if (kind == TP_PPROF_HEAP) {
        for (size_t i = 0; i < r->memory.nsites; i++)
            frames += r->memory.sites[i].nframes;
        frames += r->memory.nrollups;
        samples = r->memory.nsites + r->memory.nrollups;
    } else {
        for (size_t i = 0; i < r->nopstacks; i++)
            frames += r->opstacks[i].depth;
        frames += r->noutside_ops;
        samples = r->nopstacks + r->noutside_ops + r->nops;
        frames += r->nops;
    }
    frames += 4;
    samples += 4;
    struct ctx c = {tp_pprof_new(3 * frames + 2 * r->nmodules + 3 * samples + 16, frames, frames,
                                 r->nmodules + frames, samples, 4),
                    r,
                    {{0}},
                    calloc(r->nmodules + 1, sizeof(char *)),
                    NULL};
    int rc = -1;
    if (c.p && c.real) {
        if (kind == TP_PPROF_HEAP)
            render_heap(&c);
        else
            render_time(&c);
        rc = tp_pprof_write(c.p, b);
    }
    free(c.real);
    struct modof *e, *t;
    HASH_ITER(hh, c.found, e, t)
    {
        HASH_DEL(c.found, e);
        free(e);
    }
    tp_pprof_free(c.p);
    return rc;
}
