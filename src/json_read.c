/* Reading a JSON report back into the model, with json-c. Every value is type-checked; the first
 * problem found is reported as "<file>: <key path>: <what is wrong>" and nothing is half-read. */
#include "json_read.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE (1ull << 31)

struct ctx {
    char *err;
    size_t errlen;
    const char *file;
    int failed;
};

static void fail(struct ctx *c, const char *path, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = 1;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s: %s%s%s", c->file, path ? path : "", path ? ": " : "", what);
}

static struct json_object *get(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* Numbers: json-c keeps integers as int64 (or uint64 for larger); doubles may hold integers. */
static uint64_t u64(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
    if (!v || json_object_is_type(v, json_type_null))
        return 0;
    if (json_object_is_type(v, json_type_int)) {
        if (json_object_get_int64(v) < 0) {
            fail(c, p, "expected an unsigned integer, found %lld", (long long)json_object_get_int64(v));
            return 0;
        }
        return json_object_get_uint64(v);
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (d >= 0 && d < 1.8e19 && d == (double)(uint64_t)d)
            return (uint64_t)d;
    }
    fail(c, p, "expected an unsigned integer");
    return 0;
}

static int64_t i64(struct ctx *c, struct json_object *o, const char *k, const char *path, int64_t def)
{
    struct json_object *v = get(o, k);
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
    if (!v || json_object_is_type(v, json_type_null))
        return def;
    if (json_object_is_type(v, json_type_int))
        return json_object_get_int64(v);
    fail(c, p, "expected an integer");
    return def;
}

static double dbl(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
    if (!v || json_object_is_type(v, json_type_null))
        return 0;
    if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
        return json_object_get_double(v);
    fail(c, p, "expected a number");
    return 0;
}

static char *str(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, json_type_string)) {
        fail(c, p, "expected a string");
        return NULL;
    }
    return strdup(json_object_get_string(v));
}

static int boolean(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    if (!v || json_object_is_type(v, json_type_null))
        return 0;
    if (json_object_is_type(v, json_type_boolean))
        return json_object_get_boolean(v);
    if (json_object_is_type(v, json_type_int))
        return json_object_get_int64(v) != 0;
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
    fail(c, p, "expected true or false");
    return 0;
}

static char chr(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char *s = str(c, o, k, path);
    char r = s && strlen(s) == 1 ? s[0] : 0;
    if (s && strlen(s) != 1) {
        char p[256];
        snprintf(p, sizeof p, "%s.%s", path, k);
        fail(c, p, "expected one character");
    }
    free(s);
    return r;
}

/* An array member: NULL when absent; an error when present but not an array or an object. */
static struct json_object *array(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, json_type_array)) {
        char p[256];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
        fail(c, p, "expected an array");
        return NULL;
    }
    return v;
}

static struct json_object *object(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, json_type_object)) {
        char p[256];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
        fail(c, p, "expected an object");
        return NULL;
    }
    return v;
}

static int element_is_object(struct ctx *c, struct json_object *e, const char *path)
{
    if (json_object_is_type(e, json_type_object))
        return 1;
    fail(c, path, "expected an object");
    return 0;
}

static void latency(struct ctx *c, struct json_object *o, const char *path, struct tp_latency *l)
{
    if (!o)
        return;
    l->n = u64(c, o, "n", path);
    l->min = u64(c, o, "min", path);
    l->p50 = u64(c, o, "p50", path);
    l->p95 = u64(c, o, "p95", path);
    l->p99 = u64(c, o, "p99", path);
    l->max = u64(c, o, "max", path);
    l->mean = dbl(c, o, "mean", path);
    l->stddev = dbl(c, o, "stddev", path);
    l->p50_ci_lo = dbl(c, o, "p50_ci_lo", path);
    l->p50_ci_hi = dbl(c, o, "p50_ci_hi", path);
}

static void read_op(struct ctx *c, struct json_object *o, const char *path, struct tp_op *p)
{
    char sub[640];
    p->name = str(c, o, "name", path);
    if (!p->name)
        fail(c, path, "an op needs a name");
    p->kind = str(c, o, "kind", path);
    p->source = str(c, o, "source", path);
    p->calls = u64(c, o, "calls", path);
    p->total_ns = u64(c, o, "total_ns", path);
    p->self_ns = u64(c, o, "self_ns", path);
    p->flops = u64(c, o, "flops", path);
    p->bytes = u64(c, o, "bytes", path);
    p->flops_known = boolean(c, o, "flops_known", path);
    p->warmup_calls = u64(c, o, "warmup_calls", path);
    p->warmup_ns = u64(c, o, "warmup_ns", path);
    p->gflops = dbl(c, o, "gflops", path);
    p->intensity = dbl(c, o, "intensity", path);
    p->attainable_gflops = dbl(c, o, "attainable_gflops", path);
    p->efficiency = dbl(c, o, "efficiency", path);
    p->share = dbl(c, o, "share", path);
    p->self_share = dbl(c, o, "self_share", path);
    p->bound = str(c, o, "bound", path);
    p->alloc_bytes = u64(c, o, "alloc_bytes", path);
    p->alloc_count = u64(c, o, "alloc_count", path);
    p->nprocs = u64(c, o, "nprocs", path);
    p->proc_min_ns = dbl(c, o, "proc_min_ns", path);
    p->proc_mean_ns = dbl(c, o, "proc_mean_ns", path);
    p->proc_max_ns = dbl(c, o, "proc_max_ns", path);
    p->imbalance = dbl(c, o, "imbalance", path);
    snprintf(sub, sizeof sub, "%.500s.latency_ns", path);
    latency(c, object(c, o, "latency_ns", path), sub, &p->latency);
    struct json_object *sh = array(c, o, "shapes", path);
    size_t n = sh ? json_object_array_length(sh) : 0;
    if (n) {
        p->shapes = calloc(n, sizeof *p->shapes);
        for (size_t i = 0; p->shapes && i < n && !c->failed; i++) {
            struct json_object *e = json_object_array_get_idx(sh, i);
            snprintf(sub, sizeof sub, "%.500s.shapes[%zu]", path, i);
            if (!element_is_object(c, e, sub))
                break;
            struct tp_shape *s = &p->shapes[p->nshapes++];
            s->desc = str(c, e, "desc", sub);
            s->m = i64(c, e, "m", sub, 0);
            s->n = i64(c, e, "n", sub, 0);
            s->k = i64(c, e, "k", sub, 0);
            s->transa = chr(c, e, "transa", sub);
            s->transb = chr(c, e, "transb", sub);
            s->layout = chr(c, e, "layout", sub);
            s->calls = u64(c, e, "calls", sub);
            s->total_ns = u64(c, e, "total_ns", sub);
            s->flops = u64(c, e, "flops", sub);
            s->bytes = u64(c, e, "bytes", sub);
        }
    }
}

static void read_site(struct ctx *c, struct json_object *o, const char *path, struct tp_site *s)
{
    char sub[640];
    struct json_object *fr = array(c, o, "frames", path);
    size_t n = fr ? json_object_array_length(fr) : 0;
    if (n) {
        s->frames = calloc(n, sizeof *s->frames);
        for (size_t i = 0; s->frames && i < n && !c->failed; i++) {
            struct json_object *e = json_object_array_get_idx(fr, i);
            snprintf(sub, sizeof sub, "%.500s.frames[%zu]", path, i);
            if (!element_is_object(c, e, sub))
                break;
            struct tp_frame *f = &s->frames[s->nframes++];
            f->function = str(c, e, "function", sub);
            f->file = str(c, e, "file", sub);
            int64_t line = i64(c, e, "line", sub, 0);
            f->line = line > 0 && line < INT_MAX ? (int)line : 0;
            f->module = str(c, e, "module", sub);
            f->offset = u64(c, e, "offset", sub);
        }
    }
    s->allocs = u64(c, o, "allocs", path);
    s->frees = u64(c, o, "frees", path);
    s->bytes = u64(c, o, "bytes", path);
    s->peak_live_bytes = u64(c, o, "peak_live_bytes", path);
    s->live_at_peak_bytes = u64(c, o, "live_at_peak_bytes", path);
    s->live_at_exit_bytes = u64(c, o, "live_at_exit_bytes", path);
    s->live_at_exit_allocs = u64(c, o, "live_at_exit_allocs", path);
}

static void read_report(struct ctx *c, struct json_object *root, struct tp_report *r)
{
    char sub[640];
    if (!json_object_is_type(root, json_type_object)) {
        fail(c, NULL, "not a tprof report (the top level is not a JSON object)");
        return;
    }
    struct json_object *schema = get(root, "schema");
    if (!schema || !json_object_is_type(schema, json_type_int)) {
        fail(c, NULL, "not a tprof report (no \"schema\" number)");
        return;
    }
    int64_t v = json_object_get_int64(schema);
    if (v != TP_SCHEMA_VERSION) {
        fail(c, "schema", v > TP_SCHEMA_VERSION ? "version %lld is newer than this tprof understands (%d)"
                                                : "version %lld is not supported (this tprof reads %d)",
             (long long)v, TP_SCHEMA_VERSION);
        return;
    }
    r->schema = (int)v;
    r->tprof_version = str(c, root, "tprof_version", "");
    r->partial = boolean(c, root, "partial", "");
    r->merged_processes = u64(c, root, "merged_processes", "");
    struct json_object *notes = array(c, root, "notes", "");
    size_t nn = notes ? json_object_array_length(notes) : 0;
    for (size_t i = 0; i < nn && !c->failed; i++) {
        struct json_object *e = json_object_array_get_idx(notes, i);
        if (!json_object_is_type(e, json_type_string)) {
            snprintf(sub, sizeof sub, "notes[%zu]", i);
            fail(c, sub, "expected a string");
            break;
        }
        tp_report_note(r, "%s", json_object_get_string(e));
    }

    struct json_object *p = object(c, root, "program", "");
    if (p) {
        struct json_object *argv = array(c, p, "argv", "program");
        size_t n = argv ? json_object_array_length(argv) : 0;
        if (n) {
            r->program.argv = calloc(n, sizeof *r->program.argv);
            for (size_t i = 0; r->program.argv && i < n && !c->failed; i++) {
                struct json_object *e = json_object_array_get_idx(argv, i);
                if (!json_object_is_type(e, json_type_string)) {
                    snprintf(sub, sizeof sub, "program.argv[%zu]", i);
                    fail(c, sub, "expected a string");
                    break;
                }
                r->program.argv[r->program.argc++] = strdup(json_object_get_string(e));
            }
        }
        r->program.exe = str(c, p, "exe", "program");
        r->program.host = str(c, p, "host", "program");
        r->program.pid = i64(c, p, "pid", "program", -1);
        r->program.ppid = i64(c, p, "ppid", "program", -1);
        r->program.rank = i64(c, p, "rank", "program", 0);
        r->program.wall_ns = u64(c, p, "wall_ns", "program");
        r->program.threads = u64(c, p, "threads", "program");
        r->program.start_unix_ns = u64(c, p, "start_unix_ns", "program");
    }
    struct json_object *m = object(c, root, "machine", "");
    if (m) {
        r->machine.peak_gflops = dbl(c, m, "peak_gflops", "machine");
        r->machine.peak_gbps = dbl(c, m, "peak_gbps", "machine");
        r->machine.source = str(c, m, "source", "machine");
    }
    struct json_object *ops = array(c, root, "ops", "");
    size_t nops = ops ? json_object_array_length(ops) : 0;
    if (nops) {
        r->ops = calloc(nops, sizeof *r->ops);
        for (size_t i = 0; r->ops && i < nops && !c->failed; i++) {
            struct json_object *e = json_object_array_get_idx(ops, i);
            snprintf(sub, sizeof sub, "ops[%zu]", i);
            if (!element_is_object(c, e, sub))
                break;
            read_op(c, e, sub, &r->ops[r->nops++]);
        }
    }
    struct json_object *mem = object(c, root, "memory", "");
    if (mem) {
        struct tp_memory *x = &r->memory;
        x->peak_bytes = u64(c, mem, "peak_bytes", "memory");
        x->peak_ns = u64(c, mem, "peak_ns", "memory");
        x->peak_op = str(c, mem, "peak_op", "memory");
        x->allocs = u64(c, mem, "allocs", "memory");
        x->frees = u64(c, mem, "frees", "memory");
        x->bytes_allocated = u64(c, mem, "bytes_allocated", "memory");
        x->live_at_exit_bytes = u64(c, mem, "live_at_exit_bytes", "memory");
        x->live_at_exit_allocs = u64(c, mem, "live_at_exit_allocs", "memory");
        x->peak_rss_bytes = u64(c, mem, "peak_rss_bytes", "memory");
        x->unknown_frees = u64(c, mem, "unknown_frees", "memory");
        x->failed_allocs = u64(c, mem, "failed_allocs", "memory");
        x->alloc_ns = u64(c, mem, "alloc_ns", "memory");
        x->persistent_bytes = u64(c, mem, "persistent_bytes", "memory");
        x->transient_bytes = u64(c, mem, "transient_bytes", "memory");
        x->nsites_total = u64(c, mem, "nsites_total", "memory");
        struct json_object *sites = array(c, mem, "sites", "memory");
        size_t ns = sites ? json_object_array_length(sites) : 0;
        if (ns) {
            x->sites = calloc(ns, sizeof *x->sites);
            for (size_t i = 0; x->sites && i < ns && !c->failed; i++) {
                struct json_object *e = json_object_array_get_idx(sites, i);
                snprintf(sub, sizeof sub, "memory.sites[%zu]", i);
                if (!element_is_object(c, e, sub))
                    break;
                read_site(c, e, sub, &x->sites[x->nsites++]);
            }
        }
    }
    struct json_object *st = object(c, root, "steps", "");
    if (st) {
        r->steps.name = str(c, st, "name", "steps");
        r->steps.count = u64(c, st, "count", "steps");
        r->steps.warmup = u64(c, st, "warmup", "steps");
        latency(c, object(c, st, "latency_ns", "steps"), "steps.latency_ns", &r->steps.latency);
        r->steps.window_first = i64(c, st, "window_first", "steps", -1);
        r->steps.window_last = i64(c, st, "window_last", "steps", -1);
    }
    /* The verdict is derived: tp_analyze() recomputes it; only its shape is checked here. */
    object(c, root, "verdict", "");
}

int tp_report_read_json(const char *path, struct tp_report *r, char *err, size_t errlen)
{
    struct ctx c = {err, errlen, path, 0};
    const char *shown = strcmp(path, "-") ? path : "<stdin>";
    c.file = shown;
    tp_report_init(r);
    FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
    if (!f) {
        fail(&c, NULL, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (f != stdin)
            fclose(f);
        fail(&c, NULL, "is a directory, not a report");
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (len == cap) {
            if (cap >= MAX_FILE) {
                free(buf);
                buf = NULL;
                fail(&c, NULL, "larger than 2 GiB: not a tprof report");
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int rerr = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf) {
        fail(&c, NULL, "out of memory reading it");
        return -1;
    }
    if (rerr) {
        free(buf);
        fail(&c, NULL, "read error");
        return -1;
    }
    if (len == 0) {
        free(buf);
        fail(&c, NULL, "empty file");
        return -1;
    }
    struct json_tokener *tok = json_tokener_new_ex(64);
    struct json_object *root = tok ? json_tokener_parse_ex(tok, buf, (int)(len > INT_MAX ? INT_MAX : len)) : NULL;
    enum json_tokener_error jerr = tok ? json_tokener_get_error(tok) : json_tokener_error_depth;
    if (!root || jerr != json_tokener_success) {
        size_t off = tok ? json_tokener_get_parse_end(tok) : 0;
        size_t line = 1;
        for (size_t i = 0; i < off && i < len; i++)
            line += buf[i] == '\n';
        if (jerr == json_tokener_continue)
            fail(&c, NULL, "truncated (the JSON ends early)");
        else
            fail(&c, NULL, "not valid JSON (line %zu: %s)", line, json_tokener_error_desc(jerr));
        if (root)
            json_object_put(root);
        if (tok)
            json_tokener_free(tok);
        free(buf);
        return -1;
    }
    /* Anything but white space after the document is corruption, not a second document. */
    size_t end = json_tokener_get_parse_end(tok);
    while (end < len && (buf[end] == ' ' || buf[end] == '\n' || buf[end] == '\t' || buf[end] == '\r'))
        end++;
    json_tokener_free(tok);
    free(buf);
    if (end < len) {
        json_object_put(root);
        fail(&c, NULL, "trailing data after the JSON document");
        return -1;
    }
    read_report(&c, root, r);
    json_object_put(root);
    if (c.failed) {
        tp_report_free(r);
        return -1;
    }
    return 0;
}
