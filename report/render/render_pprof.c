/* pprof profiles: the heap's call sites and the ops' stacks as gzipped profile.proto messages
 * (report/render/profile.proto), which `go tool pprof` (its -http UI, -diff_base, -top),
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
 * calls, FLOPs and self time in the report. The time outside every op is one more sample under
 * "[outside ops]", split among the functions the CPU samples found there (those the report names)
 * in proportion to their samples, each with its sample count as a label.
 *
 * Frames of the heap profile are locations with the frame's address (load bias + offset) in the
 * mapping of its module (file, build-id, address range) and one line per function of its inline
 * chain, the innermost first; functions have their source file, lines their line. All names are
 * resolved already, so the mappings say so (has_functions ...) and readers never symbolise.
 *
 * Everything is allocated from one arena and released at once: the messages only point into it
 * and into the report. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <zlib.h>

#include "common/out/out.h"
#include "report/render/profile.pb-c.h"
#include "report/render/render.h"
#include "report/siterollup.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* ---- an arena: every allocation of one rendering, freed together ---- */

struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
};

struct arena {
    struct chunk *head;
    int oom;
};

static void *arena_alloc(struct arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (a->oom)
        return NULL;
    struct chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        c = malloc(sizeof *c + cap);
        if (!c) {
            a->oom = 1;
            return NULL;
        }
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

static char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? arena_alloc(a, (size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

static void arena_free(struct arena *a)
{
    while (a->head) {
        struct chunk *c = a->head;
        a->head = c->next;
        free(c);
    }
}

/* ---- the profile being built: tables sized for the most each rendering can add ---- */

/* A key to a table index: strings to their index in the string table, and a function's,
 * location's or mapping's identity (a string made of its parts) to its id. */
struct key {
    const char *k;
    uint64_t v;
    UT_hash_handle hh;
};

struct prof {
    struct arena a;
    Profile p;
    size_t max_strings, max_functions, max_locations, max_mappings, max_samples;
    struct key *strings, *functions, *locations, *mappings;
    int64_t program, pid; /* the labels every sample has: the program's name and process id */
    const char *program_name;
    int64_t pid_value;
};

static void *table(struct prof *p, size_t n, size_t size)
{
    return arena_alloc(&p->a, (n ? n : 1) * size);
}

static int prof_init(struct prof *p, size_t strings, size_t functions, size_t locations,
                     size_t mappings, size_t samples)
{
    memset(p, 0, sizeof *p);
    perftools__profiles__profile__init(&p->p);
    p->max_strings = strings + 64; /* the fixed names, comments and labels */
    p->max_functions = functions + 4;
    p->max_locations = locations + 4;
    p->max_mappings = mappings + 1;
    p->max_samples = samples + 2;
    p->p.string_table = table(p, p->max_strings, sizeof(char *));
    p->p.function = table(p, p->max_functions, sizeof(Function *));
    p->p.location = table(p, p->max_locations, sizeof(Location *));
    p->p.mapping = table(p, p->max_mappings, sizeof(Mapping *));
    p->p.sample = table(p, p->max_samples, sizeof(Sample *));
    return p->a.oom ? -1 : 0;
}

static void prof_free(struct prof *p)
{
    /* the entries are the arena's; only the hash tables' own buckets are malloc'ed */
    HASH_CLEAR(hh, p->strings);
    HASH_CLEAR(hh, p->functions);
    HASH_CLEAR(hh, p->locations);
    HASH_CLEAR(hh, p->mappings);
    arena_free(&p->a);
}

static struct key *find(struct key *tab, const char *k)
{
    struct key *e = NULL;
    HASH_FIND_STR(tab, k, e);
    return e;
}

static int add_key(struct prof *p, struct key **tab, const char *k, uint64_t v)
{
    struct key *e = arena_alloc(&p->a, sizeof *e);
    if (!e)
        return -1;
    e->k = k;
    e->v = v;
    HASH_ADD_KEYPTR(hh, *tab, e->k, strlen(e->k), e);
    return 0;
}

/* The index of s in the string table, added when new; 0 ("") for NULL or when full. */
static int64_t str(struct prof *p, const char *s)
{
    if (!p->p.n_string_table) { /* a reader requires string_table[0] == "" */
        p->p.string_table[0] = "";
        p->p.n_string_table = 1;
        add_key(p, &p->strings, "", 0);
    }
    if (!s)
        return 0;
    struct key *e = find(p->strings, s);
    if (e)
        return (int64_t)e->v;
    if (p->p.n_string_table >= p->max_strings || add_key(p, &p->strings, s, p->p.n_string_table))
        return 0;
    p->p.string_table[p->p.n_string_table] = (char *)s;
    return (int64_t)p->p.n_string_table++;
}

static void sample_types(struct prof *p, const char *const *types, const char *const *units,
                         size_t n, const char *period_type, const char *period_unit)
{
    p->p.sample_type = table(p, n, sizeof(ValueType *));
    ValueType *v = table(p, n + 1, sizeof *v);
    if (!p->p.sample_type || !v)
        return;
    for (size_t i = 0; i < n; i++) {
        perftools__profiles__value_type__init(&v[i]);
        v[i].type = str(p, types[i]);
        v[i].unit = str(p, units[i]);
        p->p.sample_type[i] = &v[i];
    }
    p->p.n_sample_type = n;
    p->p.default_sample_type = v[n - 1].type; /* the last: the reader's default without it too */
    perftools__profiles__value_type__init(&v[n]);
    v[n].type = str(p, period_type);
    v[n].unit = str(p, period_unit);
    p->p.period_type = &v[n];
    p->p.period = 1; /* every allocation and every op call is counted, none sampled */
}

/* The function named name in file, by its identity; its id, 0 when the table is full. */
static uint64_t function(struct prof *p, const char *name, const char *file)
{
    char *k = arena_printf(&p->a, "%s\x1f%s", name, file ? file : "");
    struct key *e = k ? find(p->functions, k) : NULL;
    if (e)
        return e->v;
    Function *f = arena_alloc(&p->a, sizeof *f);
    if (!k || !f || p->p.n_function >= p->max_functions)
        return 0;
    perftools__profiles__function__init(f);
    f->id = p->p.n_function + 1;
    f->name = f->system_name = str(p, name);
    f->filename = str(p, file);
    if (add_key(p, &p->functions, k, f->id))
        return 0;
    p->p.function[p->p.n_function++] = f;
    return f->id;
}

static Location *new_location(struct prof *p, const char *k, size_t nlines)
{
    Location *l = arena_alloc(&p->a, sizeof *l);
    Line **lines = table(p, nlines, sizeof *lines);
    Line *store = table(p, nlines, sizeof *store);
    if (!l || !lines || !store || p->p.n_location >= p->max_locations)
        return NULL;
    perftools__profiles__location__init(l);
    l->id = p->p.n_location + 1;
    for (size_t i = 0; i < nlines; i++) {
        perftools__profiles__line__init(&store[i]);
        lines[i] = &store[i];
    }
    l->line = lines;
    if (add_key(p, &p->locations, k, l->id))
        return NULL;
    p->p.location[p->p.n_location++] = l;
    return l;
}

/* A location that is only a name (an op, a made-up root): one line, no address or mapping. */
static uint64_t name_location(struct prof *p, const char *name)
{
    char *k = arena_printf(&p->a, "name\x1f%s", name);
    struct key *e = k ? find(p->locations, k) : NULL;
    if (e)
        return e->v;
    uint64_t fn = function(p, name, NULL);
    Location *l = k && fn ? new_location(p, k, 1) : NULL;
    if (!l)
        return 0;
    l->n_line = 1;
    l->line[0]->function_id = fn;
    return l->id;
}

static Sample *new_sample(struct prof *p, const uint64_t *ids, size_t nids, const int64_t *values,
                          size_t nvalues, size_t extra_labels)
{
    Sample *s = arena_alloc(&p->a, sizeof *s);
    uint64_t *loc = table(p, nids, sizeof *loc);
    int64_t *val = table(p, nvalues, sizeof *val);
    size_t nl = 2 + extra_labels;
    Label **lp = table(p, nl, sizeof *lp);
    Label *ls = table(p, nl, sizeof *ls);
    if (!s || !loc || !val || !lp || !ls || p->p.n_sample >= p->max_samples)
        return NULL;
    perftools__profiles__sample__init(s);
    size_t n = 0;
    for (size_t i = 0; i < nids; i++)
        if (ids[i]) /* a frame a full table had no room for is left out, not the sample */
            loc[n++] = ids[i];
    memcpy(val, values, nvalues * sizeof *val);
    s->location_id = loc;
    s->n_location_id = n;
    s->value = val;
    s->n_value = nvalues;
    for (size_t i = 0; i < nl; i++) {
        perftools__profiles__label__init(&ls[i]);
        lp[i] = &ls[i];
    }
    s->label = lp;
    /* every sample says which program and process it is from: profiles of several processes
     * merged by a reader stay apart by -tagfocus */
    ls[0].key = p->program;
    ls[0].str = str(p, p->program_name);
    ls[1].key = p->pid;
    ls[1].num = p->pid_value;
    s->n_label = 2;
    p->p.sample[p->p.n_sample++] = s;
    return s;
}

static void label_str(struct prof *p, Sample *s, const char *key, const char *value)
{
    Label *l = s->label[s->n_label++];
    l->key = str(p, key);
    l->str = str(p, value);
}

static void label_num(struct prof *p, Sample *s, const char *key, int64_t num, const char *unit)
{
    Label *l = s->label[s->n_label++];
    l->key = str(p, key);
    l->num = num;
    l->num_unit = str(p, unit);
}

/* ---- what both profiles say about the run ---- */

static uint64_t mapping(struct prof *p, const struct tp_report *r, const char *module,
                        uint64_t *base);

static void header(struct prof *p, const struct tp_report *r, const char *what)
{
    const struct tp_program *g = &r->program;
    str(p, NULL);
    p->program = str(p, "program");
    p->pid = str(p, "pid");
    p->program_name = g->exe ? g->exe : g->argc ? g->argv[0] : "?";
    p->pid_value = g->pid;
    p->p.time_nanos = (int64_t)g->start_unix_ns;
    p->p.duration_nanos = (int64_t)g->wall_ns;
    struct tp_buf cmd;
    tp_buf_init(&cmd);
    for (size_t i = 0; i < g->argc; i++)
        tp_buf_printf(&cmd, "%s%s", i ? " " : "", g->argv[i] ? g->argv[i] : "");
    const char *c[3];
    c[0] = arena_printf(&p->a, "tprof %s: %s of %s", r->tprof_version ? r->tprof_version : "?",
                        what, cmd.len ? tp_buf_str(&cmd) : p->program_name);
    c[1] = arena_printf(&p->a, "pid %lld on %s, wall time %llu ns",
                        (long long)g->pid, g->host ? g->host : "?",
                        (unsigned long long)g->wall_ns);
    c[2] = r->merged_processes ? arena_printf(&p->a, "merged from %llu processes",
                                              (unsigned long long)r->merged_processes)
                               : NULL;
    tp_buf_free(&cmd);
    p->p.comment = table(p, 4, sizeof *p->p.comment); /* and the kind's own */
    for (size_t i = 0; i < 3 && p->p.comment; i++)
        if (c[i])
            p->p.comment[p->p.n_comment++] = str(p, c[i]);
    /* the main program's mapping first, as readers expect (pprof names the profile by it) */
    uint64_t base;
    if (r->nmodules && r->modules[0].path)
        mapping(p, r, r->modules[0].path, &base);
}

/* ---- the heap ---- */

/* The module a frame's module is: frames name the file the symboliser opened (links resolved:
 * /usr/lib/x86_64-linux-gnu/libc.so.6), the module list the file as the loader named it
 * (/lib/x86_64-linux-gnu/libc.so.6, libopenblas.so.0 for libopenblasp-r0.3.21.so). The same
 * path, else the same file once links are resolved (where the report is made, on the machine
 * that ran the program), else the same base name. */
static const struct tp_modinfo *module_of(const struct tp_report *r, const char *module)
{
    for (size_t i = 0; i < r->nmodules; i++)
        if (r->modules[i].path && !strcmp(r->modules[i].path, module))
            return &r->modules[i];
    for (size_t i = 0; i < r->nmodules; i++) {
        char *real = r->modules[i].path ? realpath(r->modules[i].path, NULL) : NULL;
        int same = real && !strcmp(real, module);
        free(real);
        if (same)
            return &r->modules[i];
    }
    const char *base = tp_base_name(module, "");
    for (size_t i = 0; i < r->nmodules; i++)
        if (r->modules[i].path && !strcmp(tp_base_name(r->modules[i].path, "?"), base))
            return &r->modules[i];
    return NULL;
}

/* The mapping of module (path), made from the report's module list when it is there; its id, 0
 * for no module. */
static uint64_t mapping(struct prof *p, const struct tp_report *r, const char *module,
                        uint64_t *base)
{
    *base = 0;
    if (!module)
        return 0;
    const struct tp_modinfo *m = module_of(r, module);
    if (m)
        *base = m->base;
    struct key *e = find(p->mappings, module);
    if (e)
        return e->v;
    Mapping *mp = arena_alloc(&p->a, sizeof *mp);
    if (!mp || p->p.n_mapping >= p->max_mappings)
        return 0;
    perftools__profiles__mapping__init(mp);
    mp->id = p->p.n_mapping + 1;
    mp->filename = str(p, module);
    if (m) {
        mp->memory_start = m->lo;
        mp->memory_limit = m->hi;
        mp->build_id = str(p, m->build_id);
    }
    mp->has_functions = mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = 1;
    if (add_key(p, &p->mappings, module, mp->id))
        return 0;
    p->p.mapping[p->p.n_mapping++] = mp;
    return mp->id;
}

/* The location of frames[0..n) (an inline chain: every frame but the last inlined into the next,
 * all at one address); its id, 0 when a table is full. */
static uint64_t frame_location(struct prof *p, const struct tp_report *r,
                               const struct tp_frame *f, size_t n)
{
    struct tp_buf k;
    tp_buf_init(&k);
    tp_buf_printf(&k, "frame\x1f%s\x1f%llx", f->module ? f->module : "",
                  (unsigned long long)f->offset);
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&k, "\x1f%s\x1f%s\x1f%d", f[i].function ? f[i].function : "",
                      f[i].file ? f[i].file : "", f[i].line);
    char *key = tp_buf_ok(&k) ? arena_printf(&p->a, "%s", tp_buf_str(&k)) : NULL;
    tp_buf_free(&k);
    struct key *e = key ? find(p->locations, key) : NULL;
    if (!key || e)
        return e ? e->v : 0;
    uint64_t base, map = mapping(p, r, f->module, &base);
    Location *l = new_location(p, key, n);
    if (!l)
        return 0;
    l->mapping_id = map;
    l->address = base + f->offset;
    for (size_t i = 0; i < n; i++) {
        /* a frame no symbol covers is named as the folded stacks name it: module+offset */
        const char *name = f[i].function;
        if (!name)
            name = arena_printf(&p->a, "%s+0x%llx", tp_base_name(f[i].module, "?"),
                                (unsigned long long)f[i].offset);
        uint64_t fn = name ? function(p, name, f[i].file) : 0;
        if (!fn)
            continue;
        l->line[l->n_line]->function_id = fn;
        l->line[l->n_line++]->line = f[i].line;
    }
    return l->id;
}

static void heap_site(struct prof *p, const struct tp_report *r, const struct tp_site *s,
                      uint64_t *ids)
{
    size_t n = 0;
    for (size_t d = 0; d < s->nframes;) {
        size_t e = d;
        while (e + 1 < s->nframes && s->frames[e].inlined)
            e++;
        ids[n++] = frame_location(p, r, &s->frames[d], e - d + 1);
        d = e + 1;
    }
    int64_t v[4] = {(int64_t)s->allocs, (int64_t)s->bytes, (int64_t)s->live_at_exit_bytes,
                    (int64_t)s->live_at_peak_bytes};
    new_sample(p, ids, n, v, 4, 0);
}

static uint64_t sub(uint64_t total, uint64_t part)
{
    return total > part ? total - part : 0;
}

static void render_heap(struct prof *p, const struct tp_report *r)
{
    static const char *const types[] = {"alloc_objects", "alloc_space", "leak_space",
                                        "peak_space"};
    static const char *const units[] = {"count", "bytes", "bytes", "bytes"};
    const struct tp_memory *m = &r->memory;
    header(p, r, "heap profile");
    sample_types(p, types, units, 4, "space", "bytes");
    const char *peak = arena_printf(
        &p->a,
        "peak_space: bytes live when the heap peaked (%llu bytes, %llu ns into the run%s%s); "
        "leak_space: live at exit; alloc_space and alloc_objects: every allocation, bytes as "
        "requested",
        (unsigned long long)m->peak_bytes, (unsigned long long)m->peak_ns,
        m->peak_op ? ", inside " : "", m->peak_op ? m->peak_op : "");
    if (p->p.comment && peak)
        p->p.comment[p->p.n_comment++] = str(p, peak);
    size_t most = 1;
    for (size_t i = 0; i < m->nsites; i++)
        most = m->sites[i].nframes > most ? m->sites[i].nframes : most;
    uint64_t *ids = table(p, most, sizeof *ids);
    if (!ids)
        return;
    uint64_t sum[4] = {0};
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        heap_site(p, r, s, ids);
        sum[0] += s->allocs, sum[1] += s->bytes, sum[2] += s->live_at_exit_bytes;
        sum[3] += s->live_at_peak_bytes;
    }
    uint64_t more = m->nrollups ? name_location(p, "[more call sites]") : 0;
    for (size_t i = 0; i < m->nrollups; i++) {
        const struct tp_site_rollup *u = &m->rollups[i];
        const char *fn = u->function ? u->function
                                     : arena_printf(&p->a, "[%s]", tp_base_name(u->module, "?"));
        uint64_t two[2] = {fn ? name_location(p, fn) : 0, more};
        int64_t v[4] = {(int64_t)u->allocs, (int64_t)u->bytes, (int64_t)u->live_at_exit_bytes,
                        (int64_t)u->live_at_peak_bytes};
        Sample *s = new_sample(p, two, 2, v, 4, 1);
        if (s)
            label_num(p, s, "sites", (int64_t)u->sites, "count");
        sum[0] += u->allocs, sum[1] += u->bytes, sum[2] += u->live_at_exit_bytes;
        sum[3] += u->live_at_peak_bytes;
    }
    int64_t rest[4] = {(int64_t)sub(m->allocs, sum[0]), (int64_t)sub(m->bytes_allocated, sum[1]),
                       (int64_t)sub(m->live_at_exit_bytes, sum[2]),
                       (int64_t)sub(m->peak_bytes, sum[3])};
    if (rest[0] || rest[1] || rest[2] || rest[3]) {
        uint64_t none = name_location(p, "[no call site]");
        new_sample(p, &none, 1, rest, 4, 0);
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
 * each given its samples' share of the time (the shares' rounding evened out so that they and
 * the root's own add up to the time exactly). */
static void render_outside(struct prof *p, const struct tp_report *r)
{
    uint64_t ns = r->verdict.outside_ops_ns, total = r->samples.outside_ops, given = 0;
    uint64_t root = name_location(p, "[outside ops]");
    uint64_t seen = 0;
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
            f->name ? f->name : arena_printf(&p->a, "[%s]", tp_base_name(f->module, "?"));
        uint64_t two[2] = {name ? name_location(p, name) : 0, root};
        int64_t v[3] = {0, 0, (int64_t)share};
        Sample *s = new_sample(p, two, 2, v, 3, 1);
        if (s)
            label_num(p, s, "cpu_samples", (int64_t)f->samples, "count");
        given += share;
    }
    int64_t v[3] = {0, 0, (int64_t)(ns - given)};
    if (ns - given || !r->noutside_ops)
        new_sample(p, &root, 1, v, 3, 0);
}

static void render_time(struct prof *p, const struct tp_report *r)
{
    static const char *const types[] = {"calls", "flops", "self"};
    static const char *const units[] = {"count", "count", "nanoseconds"};
    header(p, r, "op-time profile");
    sample_types(p, types, units, 3, "self", "nanoseconds");
    const char *what = "self: time in the innermost op of each stack of nested ops, summed over "
                       "threads; calls and flops: that op's calls and FLOPs on that stack; "
                       "[outside ops]: the threads' time in no op, by CPU samples";
    if (p->p.comment)
        p->p.comment[p->p.n_comment++] = str(p, what);
    size_t most = 1;
    for (size_t i = 0; i < r->nopstacks; i++)
        most = r->opstacks[i].depth > most ? r->opstacks[i].depth : most;
    uint64_t *ids = table(p, most, sizeof *ids);
    if (!ids)
        return;
    for (size_t i = 0; i < r->nopstacks; i++) {
        const struct tp_opstack *s = &r->opstacks[i];
        if (!s->depth)
            continue;
        for (size_t d = 0; d < s->depth; d++) /* the innermost op is the leaf */
            ids[s->depth - 1 - d] = name_location(p, s->ops[d] ? s->ops[d] : "?");
        int64_t v[3] = {(int64_t)s->calls, (int64_t)s->flops, (int64_t)s->self_ns};
        const char *kind = s->ops[s->depth - 1] ? op_kind(r, s->ops[s->depth - 1]) : NULL;
        Sample *x = new_sample(p, ids, s->depth, v, 3, kind ? 1 : 0);
        if (x && kind)
            label_str(p, x, "kind", kind);
    }
    render_outside(p, r);
}

/* ---- packing and gzip ---- */

static int gzip_to(const uint8_t *in, size_t n, struct tp_buf *b)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip member, which is what pprof's readers expect on disk */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, n);
    if (tp_buf_reserve(b, cap) < 0) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)b->p + b->len;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    if (rc == Z_STREAM_END)
        b->len += cap - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* Upper bounds of each table, so that they are allocated once. */
static void bounds(const struct tp_report *r, enum tp_pprof_kind kind, size_t *frames,
                   size_t *samples)
{
    *frames = 0;
    *samples = 0;
    if (kind == TP_PPROF_HEAP) {
        for (size_t i = 0; i < r->memory.nsites; i++)
            *frames += r->memory.sites[i].nframes;
        *frames += r->memory.nrollups + 4;
        *samples = r->memory.nsites + r->memory.nrollups + 2;
    } else {
        for (size_t i = 0; i < r->nopstacks; i++)
            *frames += r->opstacks[i].depth;
        *frames += r->noutside_ops + 4;
        *samples = r->nopstacks + r->noutside_ops + 2;
    }
}

int tp_render_pprof(const struct tp_report *r, enum tp_pprof_kind kind, struct tp_buf *b)
{
    struct prof p;
    size_t frames, samples;
    bounds(r, kind, &frames, &samples);
    /* each frame may bring a function name, a file, a made-up name and a mapping's two strings */
    if (prof_init(&p, 3 * frames + 2 * r->nmodules + 2 * samples, frames + samples, frames,
                  r->nmodules + frames, samples) < 0) {
        prof_free(&p);
        return -1;
    }
    if (kind == TP_PPROF_HEAP)
        render_heap(&p, r);
    else
        render_time(&p, r);
    int rc = -1;
    if (!p.a.oom) {
        size_t n = perftools__profiles__profile__get_packed_size(&p.p);
        uint8_t *packed = malloc(n ? n : 1);
        if (packed && perftools__profiles__profile__pack(&p.p, packed) == n)
            rc = gzip_to(packed, n, b);
        free(packed);
    }
    prof_free(&p);
    return rc;
}
