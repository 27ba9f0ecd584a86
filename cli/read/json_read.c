/* Reading a JSON report back into the model, with json-c. Every value is type-checked by the
 * getters of cli/read/json_get.c; the first problem found is reported as "<file>: <key path>: <what
 * is wrong>" and nothing is half-read.
 *
 * Long because it reads every part of the report, one reader per object, in the order the writer
 * (report/render/render_json.c) writes them. */
#include "cli/read/read.h"
#include "report/siterollup.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/fields.h"
#include "report/analyze/analyze.h"
#include "cli/read/json_get.h"

/* Deepest valid report: root{ memory{ sites[ {frames[ {...} ] } ] } } is 6 levels. */
#define MAX_DEPTH 16

/* One scalar of a report/fields.h list: key #f of json object o (at path) into struct s, with the
 * context c (all named so by every caller). */
#define R_U64(f, d)      s->f = tp_jget_u64(c, o, #f, path);
#define R_I64(f, d)      s->f = tp_jget_i64(c, o, #f, path, d);
#define R_LINE(f, d)     s->f = tp_jget_line(c, o, #f, path);
#define R_DBL(f, d)      s->f = tp_jget_dbl(c, o, #f, path);
#define R_NS(f, d)       s->f = tp_jget_dbl_ns(c, o, #f, path);
#define R_BOOL(f, d)     s->f = tp_jget_boolean(c, o, #f, path);
#define R_CHR(f, d)      s->f = tp_jget_chr(c, o, #f, path);
#define R_STR(f, d)      s->f = tp_jget_str(c, o, #f, path);
#define READ(KIND, f, d) R_##KIND(f, d)

/* Member k of o, an array of objects, into a fresh table of n elements of size, each read by
 * one(c, element, its path, &table[i]); *count is how many were read. */
static void *objects(struct tp_jget *c, struct json_object *o, const char *k, const char *path,
                     size_t size, size_t *count,
                     void (*one)(struct tp_jget *, struct json_object *, const char *, void *))
{
    char pre[320], sub[340];
    size_t n;
    struct json_object *a = tp_jget_array(c, o, k, path, &n);
    snprintf(pre, sizeof pre, "%.200s%s%s", path, *path ? "." : "", k);
    *count = 0;
    char *t;
    if (!n || c->failed || !(t = tp_jget_table(c, n, size, pre)))
        return NULL;
    for (size_t i = 0; i < n && !c->failed; i++) {
        struct json_object *e = tp_jget_element(c, a, i, pre, sub, sizeof sub);
        if (!e)
            break;
        one(c, e, sub, t + size * (*count)++);
    }
    return t;
}

static void latency(struct tp_jget *c, struct json_object *parent, const char *k, const char *at,
                    struct tp_latency *s)
{
    char path[320];
    struct json_object *o = tp_jget_object(c, parent, k, at);
    if (!o)
        return;
    snprintf(path, sizeof path, "%s%s%s", at, *at ? "." : "", k);
    TP_LATENCY_FIELDS(READ)
}

static void read_shape(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_shape *s = v;
    TP_SHAPE_FIELDS(READ)
}

static void read_kernel(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_kernel *s = v;
    TP_KERNEL_FIELDS(READ)
}

static void read_op(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_op *s = v;
    TP_OP_FIELDS(READ)
    if (!s->name && !c->failed)
        tp_jget_fail(c, path, "an op needs a \"name\"");
    latency(c, o, "latency_ns", path, &s->latency);
    s->shapes = objects(c, o, "shapes", path, sizeof *s->shapes, &s->nshapes, read_shape);
    /* optional: only an op with CPU samples has them */
    s->kernels = objects(c, o, "kernels", path, sizeof *s->kernels, &s->nkernels, read_kernel);
}

static void read_frame(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_frame *s = v;
    TP_FRAME_FIELDS(READ)
    s->inlined = tp_jget_boolean(c, o, "inlined", path); /* written only when true */
}

/* A record's compact frames, "at": "I:OFFSET ..." (render_json.c): module I of
 * record.frame_modules ("-": none), OFFSET in hex. */
static void read_at(struct tp_jget *c, const char *at, const char *path, struct tp_site *s)
{
    size_t n = 1;
    for (const char *p = at; *p; p++)
        n += *p == ' ';
    s->frames = tp_jget_table(c, n, sizeof *s->frames, path);
    for (const char *p = at; s->frames && *p && !c->failed;) {
        char *end;
        unsigned long long m = 0;
        int none = *p == '-';
        if (none)
            end = (char *)p + 1;
        else
            m = strtoull(p, &end, 10);
        if (end == p || *end != ':' || (!none && m >= c->nframe_modules)) {
            tp_jget_fail(c, path, "\"at\": expected module:offset, found \"%.20s\"", p);
            break;
        }
        p = end + 1;
        struct tp_frame *f = &s->frames[s->nframes];
        f->offset = strtoull(p, &end, 16);
        if (end == p || (*end && *end != ' ')) {
            tp_jget_fail(c, path, "\"at\": expected a hex offset, found \"%.20s\"", p);
            break;
        }
        if (!none && !(f->module = strdup(c->frame_modules[m]))) {
            tp_jget_fail(c, path, "out of memory");
            break;
        }
        s->nframes++;
        p = *end ? end + 1 : end;
    }
}

static void read_site(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_site *s = v;
    char *at = tp_jget_str(c, o, "at", path); /* a record's */
    if (at)
        read_at(c, at, path, s);
    else
        s->frames = objects(c, o, "frames", path, sizeof *s->frames, &s->nframes, read_frame);
    free(at);
    TP_SITE_FIELDS(READ)
    char *role = tp_jget_str(c, o, "role", path); /* written only when set */
    s->role = tp_site_role_parse(role);
    free(role);
    struct json_object *e = tp_jget_object(c, o, "estimate", path);
    if (e) {
        char epath[360];
        snprintf(epath, sizeof epath, "%s.estimate", path);
        struct tp_estimate *es = &s->est;
        {
            struct tp_estimate *s = es;
            struct json_object *o = e;
            const char *path = epath;
            TP_ESTIMATE_FIELDS(READ)
        }
    }
}

/* A record's site written as one string (render_json.c): "ALLOCS FREES BYTES PEAK_LIVE
 * LIVE_AT_PEAK LIVE_AT_EXIT LIVE_AT_EXIT_ALLOCS|AT". */
static void read_site_string(struct tp_jget *c, const char *str, const char *path,
                             struct tp_site *s)
{
    uint64_t *v[7] = {&s->allocs,
                      &s->frees,
                      &s->bytes,
                      &s->peak_live_bytes,
                      &s->live_at_peak_bytes,
                      &s->live_at_exit_bytes,
                      &s->live_at_exit_allocs};
    const char *p = str;
    for (int i = 0; i < 7; i++, p++) {
        char *end = (char *)p;
        if (*p >= '0' && *p <= '9')
            *v[i] = strtoull(p, &end, 10);
        if (end == p || *end != (i < 6 ? ' ' : '|')) {
            tp_jget_fail(c, path, "a record's site: expected 7 counts, then \"|\": \"%.20s\"", p);
            return;
        }
        p = end;
    }
    read_at(c, p, path, s);
}

/* memory.sites: objects, and in a record strings too (read_site_string). */
static struct tp_site *read_sites(struct tp_jget *c, struct json_object *o, const char *path,
                                  size_t *count)
{
    char pre[320], sub[340];
    size_t n;
    struct json_object *a = tp_jget_array(c, o, "sites", path, &n);
    snprintf(pre, sizeof pre, "%.200s%ssites", path, *path ? "." : "");
    *count = 0;
    struct tp_site *t;
    if (!n || c->failed || !(t = tp_jget_table(c, n, sizeof *t, pre)))
        return NULL;
    for (size_t i = 0; i < n && !c->failed; i++) {
        struct json_object *e = json_object_array_get_idx(a, i);
        if (c->record && e && json_object_is_type(e, json_type_string)) {
            snprintf(sub, sizeof sub, "%.300s[%zu]", pre, i);
            read_site_string(c, json_object_get_string(e), sub, &t[(*count)++]);
            continue;
        }
        if (!(e = tp_jget_element(c, a, i, pre, sub, sizeof sub)))
            break;
        read_site(c, e, sub, &t[(*count)++]);
    }
    return t;
}

static void read_heap_point(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_heap_point *s = v;
    TP_HEAP_POINT_FIELDS(READ)
}

static void read_step_point(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_step_point *s = v;
    TP_STEP_POINT_FIELDS(READ)
}

static void read_rollup(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_site_rollup *s = v;
    TP_ROLLUP_FIELDS(READ)
}

static void read_ggml_buffer(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_ggml_buffer *s = v;
    TP_GGML_BUFFER_FIELDS(READ)
}

static void read_ledger_row(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_ledger_row *s = v;
    TP_LEDGER_ROW_FIELDS(READ)
}

static void read_mapping(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_mapping *s = v;
    s->frames = objects(c, o, "frames", path, sizeof *s->frames, &s->nframes, read_frame);
    TP_MAPPING_FIELDS(READ)
}

static void read_gpu_device(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_gpu_device *s = v;
    TP_GPU_DEVICE_FIELDS(READ)
}

static void read_gpu_site(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_gpu_site *s = v;
    s->frames = objects(c, o, "frames", path, sizeof *s->frames, &s->nframes, read_frame);
    TP_GPU_SITE_FIELDS(READ)
}

static void read_gpu_copy(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_gpu_copy *s = v;
    TP_GPU_COPY_FIELDS(READ)
}

static void read_gpu_kernel(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_gpu_kernel *s = v;
    TP_GPU_KERNEL_FIELDS(READ)
}

static void read_gpu_sync(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_gpu_sync *s = v;
    TP_GPU_SYNC_FIELDS(READ)
}

static void read_gpu_gemm(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_gpu_gemm *s = v;
    TP_GPU_GEMM_FIELDS(READ)
}

/* "gpu": optional when reading (reports of tprof before it have none: a program without CUDA) */
static void read_gpu(struct tp_jget *c, struct json_object *o, const char *path, struct tp_gpu *s)
{
    TP_GPU_FIELDS(READ)
    s->devices = objects(c, o, "devices", path, sizeof *s->devices, &s->ndevices, read_gpu_device);
    s->sites = objects(c, o, "sites", path, sizeof *s->sites, &s->nsites, read_gpu_site);
    s->copies = objects(c, o, "copies", path, sizeof *s->copies, &s->ncopies, read_gpu_copy);
    s->kernels = objects(c, o, "kernels", path, sizeof *s->kernels, &s->nkernels, read_gpu_kernel);
    s->syncs = objects(c, o, "syncs", path, sizeof *s->syncs, &s->nsyncs, read_gpu_sync);
    s->gemms = objects(c, o, "gemms", path, sizeof *s->gemms, &s->ngemms, read_gpu_gemm);
}

static void read_ledger_point(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_ledger_point *s = v;
    TP_LEDGER_POINT_FIELDS(READ)
}

static void read_memory(struct tp_jget *c, struct json_object *o, const char *path,
                        struct tp_memory *s)
{
    TP_MEMORY_FIELDS(READ)
    struct json_object *sm = tp_jget_object(c, o, "sampling", path);
    if (sm) {
        char spath[340];
        snprintf(spath, sizeof spath, "%s.sampling", path);
        struct tp_sampling *sp = &s->sampling;
        {
            struct tp_sampling *s = sp;
            struct json_object *o = sm;
            const char *path = spath;
            TP_SAMPLING_FIELDS(READ)
        }
    }
    s->sites = read_sites(c, o, path, &s->nsites);
    s->series = objects(c, o, "series", path, sizeof *s->series, &s->nseries, read_heap_point);
    /* optional: a report whose sites were all written has none */
    s->rollups = objects(c, o, "site_rollups", path, sizeof *s->rollups, &s->nrollups, read_rollup);
    /* optional: only a ggml program's report has them */
    s->ggml_buffers = objects(c, o, "ggml_buffers", path, sizeof *s->ggml_buffers,
                              &s->nggml_buffers, read_ggml_buffer);
    /* optional: only a report with a ledger (ledger_method set) has them */
    s->ledger = objects(c, o, "ledger", path, sizeof *s->ledger, &s->nledger, read_ledger_row);
    s->mappings = objects(c, o, "mappings", path, sizeof *s->mappings, &s->nmappings, read_mapping);
    s->ledger_series = objects(c, o, "ledger_series", path, sizeof *s->ledger_series,
                               &s->nledger_series, read_ledger_point);
}

static void read_amdahl(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_amdahl *s = v;
    TP_AMDAHL_FIELDS(READ)
}

static void read_verdict(struct tp_jget *c, struct json_object *o, const char *path,
                         struct tp_verdict *s)
{
    TP_VERDICT_FIELDS(READ)
    s->amdahl = objects(c, o, "amdahl", path, sizeof *s->amdahl, &s->namdahl, read_amdahl);
}

static void read_opstack(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_opstack *s = v;
    s->ops = tp_jget_strings(c, o, "ops", path, &s->depth);
    TP_OPSTACK_FIELDS(READ)
}

static void read_program(struct tp_jget *c, struct json_object *o, const char *path,
                         struct tp_program *s)
{
    s->argv = tp_jget_strings(c, o, "argv", path, &s->argc);
    TP_PROGRAM_FIELDS(READ)
}

static void read_machine(struct tp_jget *c, struct json_object *o, const char *path,
                         struct tp_machine *s)
{
    TP_MACHINE_FIELDS(READ)
}

static void read_steps(struct tp_jget *c, struct json_object *o, const char *path,
                       struct tp_steps *s)
{
    TP_STEPS_FIELDS(READ)
    latency(c, o, "latency_ns", path, &s->latency);
    TP_STEPS_WINDOW_FIELDS(READ)
    s->series = objects(c, o, "series", path, sizeof *s->series, &s->nseries, read_step_point);
}

static void read_outputs(struct tp_jget *c, struct json_object *o, const char *path,
                         struct tp_outputs *s)
{
    TP_OUTPUTS_FIELDS(READ)
}

static void read_samples(struct tp_jget *c, struct json_object *o, const char *path,
                         struct tp_samples *s)
{
    TP_SAMPLES_FIELDS(READ)
}

static void read_sampled_at(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_sampled_at *s = v;
    TP_SAMPLED_AT_FIELDS(READ)
}

static void read_outside(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_outside_fn *s = v;
    TP_OUTSIDE_FIELDS(READ)
    s->at = objects(c, o, "sampled_at", path, sizeof *s->at, &s->nat, read_sampled_at);
}

static void read_thread(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_thread *s = v;
    TP_THREAD_FIELDS(READ)
}

static void read_module(struct tp_jget *c, struct json_object *o, const char *path, void *v)
{
    struct tp_modinfo *s = v;
    TP_MODULE_FIELDS(READ)
}

/* "schema": present, an integer, and one this tprof reads. */
static int read_schema(struct tp_jget *c, struct json_object *root, struct tp_report *r)
{
    char f[64];
    if (!json_object_is_type(root, json_type_object)) {
        tp_jget_fail(c, NULL, "not a tprof report (the top level is %s, not an object)",
                     tp_jget_found(root, f, sizeof f) + 6);
        return -1;
    }
    struct json_object *schema = NULL;
    if (!json_object_object_get_ex(root, "schema", &schema)) {
        tp_jget_fail(c, NULL, "not a tprof report (no \"schema\" key)");
        return -1;
    }
    if (!json_object_is_type(schema, json_type_int)) {
        tp_jget_fail(c, "schema", "expected an integer, %s", tp_jget_found(schema, f, sizeof f));
        return -1;
    }
    int64_t v = json_object_get_int64(schema);
    if (v > TP_SCHEMA_VERSION) {
        tp_jget_fail(c, NULL, "schema %lld is newer than this tprof understands (%d)", (long long)v,
                     TP_SCHEMA_VERSION);
        return -1;
    }
    if (v < 1) {
        tp_jget_fail(c, NULL, "schema %lld is not a tprof schema (this tprof reads %d)",
                     (long long)v, TP_SCHEMA_VERSION);
        return -1;
    }
    r->schema = (int)v;
    return 0;
}

static void read_report(struct tp_jget *c, struct json_object *o, struct tp_report *s)
{
    const char *path = "";
    struct json_object *x;
    if (read_schema(c, o, s) < 0)
        return;
    TP_REPORT_FIELDS(READ)
    if ((x = tp_jget_object(c, o, "record", path))) {
        struct tp_record *r = &s->record;
        {
            struct tp_record *s = r;
            struct json_object *o = x;
            const char *path = "record";
            TP_RECORD_FIELDS(READ)
            c->frame_modules = tp_jget_strings(c, o, "frame_modules", path, &c->nframe_modules);
            c->record = 1;
        }
    }
    s->notes = tp_jget_strings(c, o, "notes", path, &s->nnotes);
    if ((x = tp_jget_object(c, o, "program", path)))
        read_program(c, x, "program", &s->program);
    if ((x = tp_jget_object(c, o, "machine", path)))
        read_machine(c, x, "machine", &s->machine);
    s->ops = objects(c, o, "ops", path, sizeof *s->ops, &s->nops, read_op);
    if ((x = tp_jget_object(c, o, "memory", path)))
        read_memory(c, x, "memory", &s->memory);
    /* A report from before the split: flags and figures from its sites. A record's sites are
     * classified once named (report/record.c). */
    if (!s->record.version)
        tp_memory_classify(&s->memory);
    if ((x = tp_jget_object(c, o, "steps", path)))
        read_steps(c, x, "steps", &s->steps);
    /* The verdict is derived (tp_analyze() recomputes it), but it is read so that the model
     * holds everything the file says. */
    if ((x = tp_jget_object(c, o, "verdict", path)))
        read_verdict(c, x, "verdict", &s->verdict);
    s->opstacks =
        objects(c, o, "op_stacks", path, sizeof *s->opstacks, &s->nopstacks, read_opstack);
    s->opstacks_dropped = tp_jget_u64(c, o, "op_stacks_dropped", path);
    if ((x = tp_jget_object(c, o, "outputs", path)))
        read_outputs(c, x, "outputs", &s->outputs);
    if ((x = tp_jget_object(c, o, "samples", path)))
        read_samples(c, x, "samples", &s->samples);
    s->outside_ops =
        objects(c, o, "outside_ops", path, sizeof *s->outside_ops, &s->noutside_ops, read_outside);
    s->threads = objects(c, o, "threads", path, sizeof *s->threads, &s->nthreads, read_thread);
    s->modules = objects(c, o, "modules", path, sizeof *s->modules, &s->nmodules, read_module);
    if ((x = tp_jget_object(c, o, "gpu", path)))
        read_gpu(c, x, "gpu", &s->gpu);
}

/* Line and column (both from 1) of byte offset off. */
static void position(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* What can be told before parsing: empty, too large, compressed, white space only. 0 when
 * none of these, else -1 with the error in c. */
static int refuse_early(struct tp_jget *c, const char *buf, size_t len)
{
    if (len == 0) {
        tp_jget_fail(c, NULL, "empty file");
        return -1;
    }
    if (len > TP_JSON_MAX_BYTES) {
        tp_jget_fail(c, NULL, "larger than %llu MiB: not a tprof report", TP_JSON_MAX_BYTES >> 20);
        return -1;
    }
    /* Reports are often compressed for storage: say so rather than "not JSON". */
    static const struct {
        const char *magic, *tool;
        size_t n;
    } packed[] = {{"\x1f\x8b", "gzip", 2},
                  {"\x28\xb5\x2f\xfd", "zstd", 4},
                  {"\xfd"
                   "7zXZ",
                   "xz", 5}};
    for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++)
        if (len >= packed[i].n && !memcmp(buf, packed[i].magic, packed[i].n)) {
            tp_jget_fail(c, NULL, "compressed with %s: uncompress it first", packed[i].tool);
            return -1;
        }
    size_t ws = 0;
    while (ws < len && (buf[ws] == ' ' || buf[ws] == '\n' || buf[ws] == '\t' || buf[ws] == '\r'))
        ws++;
    if (ws == len) {
        tp_jget_fail(c, NULL, "empty file (white space only)");
        return -1;
    }
    return 0;
}

int tp_report_parse_json(const char *name, const char *buf, size_t len, struct tp_report *r,
                         char *err, size_t errlen)
{
    struct tp_jget c = {err, errlen, name, 0, NULL, 0};
    size_t line, col;
    tp_report_init(r);
    if (errlen)
        err[0] = 0;
    if (refuse_early(&c, buf, len) < 0)
        return -1;
    /* json-c takes a NUL as the end of its input, and wants one after the last byte to know
     * that a trailing number has ended: it parses the text up to the first NUL (if any), and
     * a NUL is reported where the JSON before it was still good. */
    const char *nul = memchr(buf, 0, len);
    size_t plen = nul ? (size_t)(nul - buf) : len;
    char *text = malloc(plen + 1);
    struct json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
    if (!text || !tok) {
        free(text);
        if (tok)
            json_tokener_free(tok);
        tp_jget_fail(&c, NULL, "out of memory");
        return -1;
    }
    memcpy(text, buf, plen);
    text[plen] = 0;
    /* Trailing data is checked below, to say so in words json-c does not have. */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8 |
                                    JSON_TOKENER_ALLOW_TRAILING_CHARS);
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)plen + 1);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    free(text);
    int eof = jerr == json_tokener_error_parse_eof || jerr == json_tokener_continue;
    if (!root || jerr != json_tokener_success) {
        position(buf, len, end, &line, &col);
        if (eof && nul) {
            position(buf, len, plen, &line, &col);
            tp_jget_fail(&c, NULL, "not JSON (line %zu, column %zu: a NUL byte; binary data?)",
                         line, col);
        } else if (eof) {
            tp_jget_fail(&c, NULL, "truncated (the JSON ends early, at line %zu)", line);
        } else if (jerr == json_tokener_error_depth) {
            tp_jget_fail(&c, NULL,
                         "not a tprof report (line %zu, column %zu: nested deeper than %d "
                         "levels)",
                         line, col, MAX_DEPTH);
        } else {
            tp_jget_fail(&c, NULL, "not JSON (line %zu, column %zu: %s)", line, col,
                         json_tokener_error_desc(jerr));
        }
        if (root)
            json_object_put(root);
        return -1;
    }
    /* Anything but white space after the document is corruption, not a second document. */
    size_t rest = end;
    while (rest < len &&
           (buf[rest] == ' ' || buf[rest] == '\n' || buf[rest] == '\t' || buf[rest] == '\r'))
        rest++;
    if (rest < len) {
        position(buf, len, rest, &line, &col);
        tp_jget_fail(&c, NULL, "not JSON (line %zu, column %zu: %s)", line, col,
                     buf[rest] ? "more data after the report" : "a NUL byte; binary data?");
        json_object_put(root);
        return -1;
    }
    read_report(&c, root, r);
    json_object_put(root);
    for (size_t i = 0; i < c.nframe_modules; i++)
        free(c.frame_modules[i]);
    free(c.frame_modules);
    if (c.failed) {
        tp_report_free(r);
        return -1;
    }
    return 0;
}

int tp_report_read_json(const char *path, struct tp_report *r, char *err, size_t errlen)
{
    int is_stdin = !strcmp(path, "-");
    struct tp_jget c = {err, errlen, is_stdin ? "<stdin>" : path, 0, NULL, 0};
    tp_report_init(r);
    FILE *f = is_stdin ? stdin : fopen(path, "re");
    if (!f) {
        tp_jget_fail(&c, NULL, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!is_stdin)
            fclose(f);
        tp_jget_fail(&c, NULL, "is a directory, not a report");
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int too_big = 0, binary = 0, oom = !buf;
    while (buf) {
        if (len == cap) {
            if (cap >= TP_JSON_MAX_BYTES) {
                too_big = 1;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                oom = 1;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        /* Stop early on binary input (/dev/zero, a core file): it can never be a report. */
        if (memchr(buf + len, 0, got))
            binary = 1;
        len += got;
        if (got == 0 || binary)
            break;
    }
    int rerr = ferror(f) ? errno : 0;
    if (!is_stdin)
        fclose(f);
    int rc = -1;
    if (oom)
        tp_jget_fail(&c, NULL, "out of memory reading it");
    else if (rerr)
        tp_jget_fail(&c, NULL, "cannot read: %s", strerror(rerr));
    else if (too_big)
        tp_jget_fail(&c, NULL, "larger than %llu MiB: not a tprof report", TP_JSON_MAX_BYTES >> 20);
    else
        rc = tp_report_parse_json(c.file, buf, len, r, err, errlen);
    free(buf);
    return rc;
}
