/* The JSON report, and the record libtprof.so hands to the reporter: exactly the shape of
 * docs/json-shape.md (schema 1). Hand-written because the writer runs inside the profiled process
 * at exit, where a JSON library would be one more thing to load; the CLI reads it back with
 * json-c.
 *
 * Long because it is the one writer of every object of the model, each by its field list
 * (report/fields.h), and of the record's compact call sites: one file to read against the shape. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
/* out of memory in a hash insertion: that path is looked up again next time, never an exit */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "common/out/out.h"
#include "report/siterollup.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fields.h"
#include "report/analyze/analyze.h"
#include "report/render/render.h"
#include "report/units.h"

/* JSON string: quotes, backslash, control characters and DEL escaped; each byte that is not
 * part of valid UTF-8 becomes U+FFFD, so that the document always parses, strictly. */
static void jstr(struct tp_buf *b, const char *s)
{
    if (!s) {
        tp_buf_puts(b, "null");
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t safe = 0;
    while (p[safe] >= 0x20 && p[safe] < 0x7f && p[safe] != '"' && p[safe] != '\\')
        safe++;
    if (!p[safe]) { /* most strings, names and paths: quoted in one piece */
        tp_buf_put_quoted(b, s, safe);
        return;
    }
    tp_buf_putc(b, '"');
    while (*p) {
        /* a run that needs no escaping, in one piece: a short process's JSON report is mostly
         * names and paths, and a byte at a time was a third of writing it */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
            q++;
        if (q > p) {
            tp_buf_put(b, (const char *)p, (size_t)(q - p));
            p = q;
            continue;
        }
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            tp_buf_putc(b, '\\');
            tp_buf_putc(b, (char)c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': tp_buf_puts(b, "\\n"); break;
            case '\t': tp_buf_puts(b, "\\t"); break;
            case '\r': tp_buf_puts(b, "\\r"); break;
            case '\b': tp_buf_puts(b, "\\b"); break;
            case '\f': tp_buf_puts(b, "\\f"); break;
            default: tp_buf_printf(b, "\\u%04x", c); break;
            }
            p++;
        } else if (c < 0x80) {
            tp_buf_putc(b, (char)c);
            p++;
        } else {
            int len = tp_utf8_len(p);
            if (len) {
                tp_buf_put(b, (const char *)p, (size_t)len);
                p += len;
            } else {
                tp_buf_puts(b, "\\ufffd");
                p++;
            }
        }
    }
    tp_buf_putc(b, '"');
}

void tp_json_str(struct tp_buf *b, const char *s)
{
    jstr(b, s);
}

/* Doubles: never NaN or Inf (not JSON: written as 0), in the fewest digits that read back as the
 * same double (0.6, not 0.59999999999999998), and with a decimal point whatever LC_NUMERIC the
 * profiled program chose. */
static void jdbl(struct tp_buf *b, double v)
{
    if (!isfinite(v))
        v = 0;
    char tmp[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        /* strtod reads the same locale's decimal separator that snprintf wrote. */
        if (strtod(tmp, NULL) == v)
            break;
    }
    for (char *c = tmp; *c; c++)
        if (*c == ',')
            *c = '.';
    tp_buf_puts(b, tmp);
}

/* Integers by hand, not through printf: a short process's report writes tens of thousands. */
static void ju64(struct tp_buf *b, uint64_t v)
{
    char d[20];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tp_buf_put(b, d + i, sizeof d - i);
}

static void ji64(struct tp_buf *b, int64_t v)
{
    if (v < 0) {
        tp_buf_putc(b, '-');
        ju64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        ju64(b, (uint64_t)v);
    }
}

static void jchar(struct tp_buf *b, char c)
{
    char s[2] = {c, 0};
    jstr(b, c ? s : NULL);
}

/* Key helpers: a comma before every key but the first of an object. */
struct obj {
    struct tp_buf *b;
    int n;
};

/* ,"k": in one piece: keys are the shape's names, plain ASCII (jstr for any other) */
static void key(struct obj *o, const char *k)
{
    char t[64];
    size_t n = 0, at = 0;
    if (o->n++)
        t[at++] = ',';
    t[at++] = '"';
    while (k[n] && at < sizeof t - 2 && k[n] >= 0x20 && k[n] < 0x7f && k[n] != '"' && k[n] != '\\')
        t[at++] = k[n++];
    if (k[n]) {
        tp_buf_put(o->b, t, at - 1 - n); /* the comma, if any */
        jstr(o->b, k);
        tp_buf_putc(o->b, ':');
        return;
    }
    t[at++] = '"';
    t[at++] = ':';
    tp_buf_put(o->b, t, at);
}

static void k_u64(struct obj *o, const char *k, uint64_t v)
{
    key(o, k);
    ju64(o->b, v);
}
static void k_i64(struct obj *o, const char *k, int64_t v)
{
    key(o, k);
    ji64(o->b, v);
}
static void k_dbl(struct obj *o, const char *k, double v)
{
    key(o, k);
    jdbl(o->b, v);
}
static void k_str(struct obj *o, const char *k, const char *v)
{
    key(o, k);
    jstr(o->b, v);
}
static void k_bool(struct obj *o, const char *k, int v)
{
    key(o, k);
    tp_buf_puts(o->b, v ? "true" : "false");
}
static void k_char(struct obj *o, const char *k, char v)
{
    key(o, k);
    jchar(o->b, v);
}

/* One scalar of a report/fields.h list: key and value of struct s into object o (both named so by
 * every caller). */
#define W_U64(f, d)       k_u64(o, #f, s->f);
#define W_I64(f, d)       k_i64(o, #f, s->f);
#define W_LINE(f, d)      k_i64(o, #f, s->f);
#define W_DBL(f, d)       k_dbl(o, #f, s->f);
#define W_NS(f, d)        k_dbl(o, #f, s->f);
#define W_BOOL(f, d)      k_bool(o, #f, s->f);
#define W_CHR(f, d)       k_char(o, #f, s->f);
#define W_STR(f, d)       k_str(o, #f, s->f ? s->f : (d));
#define WRITE(KIND, f, d) W_##KIND(f, d)

static void latency(struct tp_buf *b, const struct tp_latency *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_LATENCY_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void shape(struct tp_buf *b, const struct tp_shape *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_SHAPE_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void op(struct tp_buf *b, const struct tp_op *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_OP_FIELDS(WRITE)
    key(o, "latency_ns");
    latency(b, &s->latency);
    key(o, "shapes");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->nshapes; i++) {
        if (i)
            tp_buf_putc(b, ',');
        shape(b, &s->shapes[i]);
    }
    tp_buf_putc(b, ']');
    if (s->nkernels) { /* only then: an op without samples reads as it always did */
        key(o, "kernels");
        tp_buf_putc(b, '[');
        for (size_t i = 0; i < s->nkernels; i++) {
            const struct tp_kernel *kp = &s->kernels[i];
            struct obj kobj = {b, 0};
            tp_buf_puts(b, i ? ",{" : "{");
            {
                struct obj *o = &kobj;
                const struct tp_kernel *s = kp;
                TP_KERNEL_FIELDS(WRITE)
            }
            tp_buf_putc(b, '}');
        }
        tp_buf_putc(b, ']');
    }
    tp_buf_putc(b, '}');
}

static void frame(struct tp_buf *b, const struct tp_frame *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_FRAME_FIELDS(WRITE)
    /* only when set: most frames are not inlined, and older readers know no such key */
    if (s->inlined)
        k_bool(o, "inlined", 1);
    tp_buf_putc(b, '}');
}

static void strings(struct tp_buf *b, char *const *v, size_t n);

/* A record's module files, each once (its frames name them by index): a record has tens of
 * thousands of frames, and a path in each, read back with the rest, was most of what the
 * reporter spent on a compiler's record. */
struct modix {
    UT_hash_handle hh;
    const char *path;
    size_t i;
};

struct modtab {
    struct modix *by_path;
    const char **paths;
    size_t n, cap;
    int ok;
};

/* Index of path in t, added if new; -1 without memory. */
static long mod_index(struct modtab *t, const char *path)
{
    struct modix *x = NULL;
    HASH_FIND_STR(t->by_path, path, x);
    if (x)
        return (long)x->i;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        const char **v = realloc(t->paths, cap * sizeof *v);
        if (!v)
            return -1;
        t->paths = v;
        t->cap = cap;
    }
    if (!(x = calloc(1, sizeof *x)))
        return -1;
    x->path = path;
    x->i = t->n;
    t->paths[t->n++] = path;
    HASH_ADD_KEYPTR(hh, t->by_path, x->path, strlen(x->path), x);
    return (long)x->i;
}

/* Every frame of the record is module and offset only (the recorder named none): then "at". */
static int compact(const struct tp_site *s)
{
    for (size_t i = 0; i < s->nframes; i++)
        if (s->frames[i].function || s->frames[i].file)
            return 0;
    return 1;
}

static void modtab_build(struct modtab *t, const struct tp_memory *m)
{
    memset(t, 0, sizeof *t);
    t->ok = 1;
    for (size_t i = 0; t->ok && i < m->nsites; i++)
        for (size_t j = 0; compact(&m->sites[i]) && j < m->sites[i].nframes; j++)
            if (m->sites[i].frames[j].module && mod_index(t, m->sites[i].frames[j].module) < 0)
                t->ok = 0;
}

static void modtab_free(struct modtab *t)
{
    struct modix *x, *tmp;
    HASH_ITER(hh, t->by_path, x, tmp)
    {
        HASH_DEL(t->by_path, x);
        free(x);
    }
    free(t->paths);
}

/* A record's site's frames as "at": "I:OFFSET ..." (I the index in record.frame_modules, "-"
 * for no module; OFFSET in hex). */
static void at_frames(struct tp_buf *b, const struct tp_site *s, struct modtab *t)
{
    for (size_t i = 0; i < s->nframes; i++) {
        const struct tp_frame *f = &s->frames[i];
        long k = f->module ? mod_index(t, f->module) : -1;
        if (k >= 0)
            tp_buf_printf(b, "%s%ld:%llx", i ? " " : "", k, (unsigned long long)f->offset);
        else
            tp_buf_printf(b, "%s-:%llx", i ? " " : "", (unsigned long long)f->offset);
    }
}

static void at(struct tp_buf *b, const struct tp_site *s, struct modtab *t)
{
    tp_buf_puts(b, "\"at\":\"");
    at_frames(b, s, t);
    tp_buf_putc(b, '"');
}

/* A record's site as one string, "ALLOCS FREES BYTES PEAK_LIVE LIVE_AT_PEAK LIVE_AT_EXIT
 * LIVE_AT_EXIT_ALLOCS|AT" (AT as above), when nothing else is set (no role, estimate or class: the
 * reporter sets those): an object of eleven keys costs json-c a hash table per site, a string
 * one allocation, and a compiler's record has a thousand sites. */
static int site_as_string(struct tp_buf *b, const struct tp_site *s, struct modtab *t)
{
    if (!t || !t->ok || !compact(s) || tp_site_role_name(s->role) || s->est.samples || s->system ||
        s->suppressed || s->interpreter)
        return 0;
    tp_buf_printf(b, "\"%llu %llu %llu %llu %llu %llu %llu|", (unsigned long long)s->allocs,
                  (unsigned long long)s->frees, (unsigned long long)s->bytes,
                  (unsigned long long)s->peak_live_bytes, (unsigned long long)s->live_at_peak_bytes,
                  (unsigned long long)s->live_at_exit_bytes,
                  (unsigned long long)s->live_at_exit_allocs);
    at_frames(b, s, t);
    tp_buf_putc(b, '"');
    return 1;
}

static void site(struct tp_buf *b, const struct tp_site *s, struct modtab *t)
{
    struct obj obj = {b, 0}, *o = &obj;
    if (site_as_string(b, s, t))
        return;
    tp_buf_putc(b, '{');
    if (t && t->ok && compact(s)) {
        at(b, s, t);
        o->n = 1;
    } else {
        key(o, "frames");
        tp_buf_putc(b, '[');
        for (size_t i = 0; i < s->nframes; i++) {
            if (i)
                tp_buf_putc(b, ',');
            frame(b, &s->frames[i]);
        }
        tp_buf_putc(b, ']');
    }
    TP_SITE_FIELDS(WRITE)
    /* only when set: most sites are no framework's tensors */
    if (tp_site_role_name(s->role))
        k_str(o, "role", tp_site_role_name(s->role));
    if (s->est.samples) {
        const struct tp_estimate *e = &s->est;
        key(o, "estimate");
        tp_buf_putc(b, '{');
        struct obj eobj = {b, 0};
        {
            struct obj *o = &eobj;
            const struct tp_estimate *s = e;
            TP_ESTIMATE_FIELDS(WRITE)
        }
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, '}');
}

/* memory's "ledger", "mappings" and "ledger_series" (track/heap/ledger.c). A mapping's frames
 * are always objects: there are few of them. */
static void ledger(struct obj *mo, const struct tp_memory *m)
{
    struct tp_buf *b = mo->b;
    key(mo, "ledger");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < m->nledger; i++) {
        const struct tp_ledger_row *s = &m->ledger[i];
        struct obj obj = {b, 0}, *o = &obj;
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        TP_LEDGER_ROW_FIELDS(WRITE)
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, ']');
    key(mo, "mappings");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < m->nmappings; i++) {
        const struct tp_mapping *s = &m->mappings[i];
        struct obj obj = {b, 0}, *o = &obj;
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        key(o, "frames");
        tp_buf_putc(b, '[');
        for (size_t j = 0; j < s->nframes; j++) {
            if (j)
                tp_buf_putc(b, ',');
            frame(b, &s->frames[j]);
        }
        tp_buf_putc(b, ']');
        TP_MAPPING_FIELDS(WRITE)
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, ']');
    key(mo, "ledger_series");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < m->nledger_series; i++) {
        const struct tp_ledger_point *s = &m->ledger_series[i];
        struct obj obj = {b, 0}, *o = &obj;
        tp_buf_puts(b, i ? ",{" : "{");
        TP_LEDGER_POINT_FIELDS(WRITE)
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, ']');
}

static void heap_point(struct tp_buf *b, const struct tp_heap_point *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_HEAP_POINT_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void step_point(struct tp_buf *b, const struct tp_step_point *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_STEP_POINT_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void rollup(struct tp_buf *b, const struct tp_site_rollup *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_ROLLUP_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void memory(struct tp_buf *b, const struct tp_memory *s, struct modtab *t)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_MEMORY_FIELDS(WRITE)
    if (s->sampling.mean_bytes) {
        const struct tp_sampling *sp = &s->sampling;
        key(o, "sampling");
        tp_buf_putc(b, '{');
        struct obj sobj = {b, 0};
        {
            struct obj *o = &sobj;
            const struct tp_sampling *s = sp;
            TP_SAMPLING_FIELDS(WRITE)
        }
        tp_buf_putc(b, '}');
    }
    key(o, "sites");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->nsites; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        site(b, &s->sites[i], t);
    }
    tp_buf_putc(b, ']');
    if (s->nrollups) { /* only then: the JSON of a report without them stays as it was */
        key(o, "site_rollups");
        tp_buf_putc(b, '[');
        for (size_t i = 0; i < s->nrollups; i++) {
            tp_buf_puts(b, i ? ",\n" : "\n");
            rollup(b, &s->rollups[i]);
        }
        tp_buf_putc(b, ']');
    }
    if (s->nggml_buffers) { /* only then: the JSON of a report without ggml stays as it was */
        key(o, "ggml_buffers");
        tp_buf_putc(b, '[');
        for (size_t i = 0; i < s->nggml_buffers; i++) {
            const struct tp_ggml_buffer *g = &s->ggml_buffers[i];
            tp_buf_puts(b, i ? ",\n{" : "\n{");
            struct obj gobj = {b, 0};
            {
                struct obj *o = &gobj;
                const struct tp_ggml_buffer *s = g;
                TP_GGML_BUFFER_FIELDS(WRITE)
            }
            tp_buf_putc(b, '}');
        }
        tp_buf_putc(b, ']');
    }
    if (s->ledger_method) /* only then: a report without a ledger stays as it was */
        ledger(o, s);
    tp_buf_puts(b, ",\n\"series\":[");
    for (size_t i = 0; i < s->nseries; i++) {
        tp_buf_puts(b, i ? "," : "");
        heap_point(b, &s->series[i]);
    }
    tp_buf_puts(b, "]}");
}

static void strings(struct tp_buf *b, char *const *v, size_t n)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            tp_buf_putc(b, ',');
        jstr(b, v[i]);
    }
    tp_buf_putc(b, ']');
}

static void program(struct tp_buf *b, const struct tp_program *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    key(o, "argv");
    strings(b, s->argv, s->argc);
    TP_PROGRAM_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void machine(struct tp_buf *b, const struct tp_machine *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_MACHINE_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void steps(struct tp_buf *b, const struct tp_steps *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_STEPS_FIELDS(WRITE)
    key(o, "latency_ns");
    latency(b, &s->latency);
    TP_STEPS_WINDOW_FIELDS(WRITE)
    key(o, "series");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->nseries; i++) {
        tp_buf_puts(b, i ? "," : "");
        step_point(b, &s->series[i]);
    }
    tp_buf_puts(b, "]}");
}

static void amdahl(struct tp_buf *b, const struct tp_amdahl *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_AMDAHL_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void verdict(struct tp_buf *b, const struct tp_verdict *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_VERDICT_FIELDS(WRITE)
    key(o, "amdahl");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->namdahl; i++) {
        if (i)
            tp_buf_putc(b, ',');
        amdahl(b, &s->amdahl[i]);
    }
    tp_buf_puts(b, "]}");
}

static void opstack(struct tp_buf *b, const struct tp_opstack *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    key(o, "ops");
    strings(b, s->ops, s->depth);
    TP_OPSTACK_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void outputs(struct tp_buf *b, const struct tp_outputs *s)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    TP_OUTPUTS_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void samples(struct tp_buf *b, const struct tp_report *r)
{
    struct obj obj = {b, 0}, *o = &obj;
    const struct tp_samples *s = &r->samples;
    tp_buf_putc(b, '{');
    TP_SAMPLES_FIELDS(WRITE)
    tp_buf_putc(b, '}');
}

static void outside_ops(struct tp_buf *b, const struct tp_report *r)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < r->noutside_ops; i++) {
        const struct tp_outside_fn *s = &r->outside_ops[i];
        struct obj obj = {b, 0}, *o = &obj;
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        TP_OUTSIDE_FIELDS(WRITE)
        if (s->nat) {
            const struct tp_outside_fn *f = s;
            key(o, "sampled_at");
            tp_buf_putc(b, '[');
            for (size_t j = 0; j < f->nat; j++) {
                const struct tp_sampled_at *s = &f->at[j];
                struct obj inner = {b, 0}, *o = &inner;
                tp_buf_puts(b, j ? ",{" : "{");
                TP_SAMPLED_AT_FIELDS(WRITE)
                tp_buf_putc(b, '}');
            }
            tp_buf_putc(b, ']');
        }
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "]\n");
}

static void threads(struct tp_buf *b, const struct tp_report *r)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct tp_thread *s = &r->threads[i];
        struct obj obj = {b, 0}, *o = &obj;
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        TP_THREAD_FIELDS(WRITE)
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "]\n");
}

/* "gpu": its scalars, then each list, one element a line (track/gpu/gpu.c). */
#define GPU_LIST(name, arr, n, FIELDS, extra)                                                      \
    do {                                                                                           \
        key(go, name);                                                                             \
        tp_buf_putc(b, '[');                                                                       \
        for (size_t i = 0; i < (n); i++) {                                                         \
            const __typeof__(*(arr)) *s = &(arr)[i];                                               \
            struct obj obj = {b, 0}, *o = &obj;                                                    \
            tp_buf_puts(b, i ? ",\n{" : "\n{");                                                    \
            extra;                                                                                 \
            FIELDS(WRITE)                                                                          \
            tp_buf_putc(b, '}');                                                                   \
        }                                                                                          \
        tp_buf_putc(b, ']');                                                                       \
    } while (0)

static void gpu_frames(struct obj *o, const struct tp_gpu_site *s)
{
    key(o, "frames");
    tp_buf_putc(o->b, '[');
    for (size_t j = 0; j < s->nframes; j++) {
        if (j)
            tp_buf_putc(o->b, ',');
        frame(o->b, &s->frames[j]);
    }
    tp_buf_putc(o->b, ']');
}

static void gpu(struct tp_buf *b, const struct tp_gpu *g)
{
    struct obj gobj = {b, 0}, *go = &gobj;
    tp_buf_putc(b, '{');
    {
        const struct tp_gpu *s = g;
        struct obj *o = go;
        TP_GPU_FIELDS(WRITE)
    }
    GPU_LIST("devices", g->devices, g->ndevices, TP_GPU_DEVICE_FIELDS, (void)0);
    GPU_LIST("sites", g->sites, g->nsites, TP_GPU_SITE_FIELDS, gpu_frames(o, s));
    GPU_LIST("copies", g->copies, g->ncopies, TP_GPU_COPY_FIELDS, (void)0);
    GPU_LIST("kernels", g->kernels, g->nkernels, TP_GPU_KERNEL_FIELDS, (void)0);
    GPU_LIST("syncs", g->syncs, g->nsyncs, TP_GPU_SYNC_FIELDS, (void)0);
    GPU_LIST("gemms", g->gemms, g->ngemms, TP_GPU_GEMM_FIELDS, (void)0);
    tp_buf_putc(b, '}');
}

static void modules(struct tp_buf *b, const struct tp_report *r)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < r->nmodules; i++) {
        const struct tp_modinfo *s = &r->modules[i];
        struct obj obj = {b, 0}, *o = &obj;
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        TP_MODULE_FIELDS(WRITE)
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "]\n");
}

void tp_render_json(const struct tp_report *s, struct tp_buf *b)
{
    struct obj obj = {b, 0}, *o = &obj;
    tp_buf_putc(b, '{');
    k_i64(o, "schema", s->schema);
    TP_REPORT_FIELDS(WRITE)
    struct modtab tab, *t = NULL;
    if (s->record.version) {
        modtab_build(&tab, &s->memory);
        t = &tab;
        const struct tp_record *r = &s->record;
        struct obj inner = {b, 0};
        key(o, "record");
        tp_buf_putc(b, '{');
        {
            struct obj *o = &inner;
            const struct tp_record *s = r;
            TP_RECORD_FIELDS(WRITE)
            if (t->ok) {
                key(o, "frame_modules");
                strings(b, (char *const *)t->paths, t->n);
            }
        }
        tp_buf_puts(b, "}\n");
    }
    key(o, "notes");
    strings(b, s->notes, s->nnotes);
    tp_buf_putc(b, '\n');
    key(o, "program");
    program(b, &s->program);
    tp_buf_putc(b, '\n');
    key(o, "machine");
    machine(b, &s->machine);
    tp_buf_putc(b, '\n');
    key(o, "ops");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->nops; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        op(b, &s->ops[i]);
    }
    tp_buf_puts(b, "]\n");
    key(o, "memory");
    memory(b, &s->memory, t);
    tp_buf_putc(b, '\n');
    key(o, "steps");
    steps(b, &s->steps);
    tp_buf_putc(b, '\n');
    key(o, "verdict");
    verdict(b, &s->verdict);
    tp_buf_putc(b, '\n');
    key(o, "op_stacks");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->nopstacks; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        opstack(b, &s->opstacks[i]);
    }
    tp_buf_puts(b, "]\n");
    k_u64(o, "op_stacks_dropped", s->opstacks_dropped);
    key(o, "outputs");
    outputs(b, &s->outputs);
    tp_buf_putc(b, '\n');
    key(o, "samples");
    samples(b, s);
    tp_buf_putc(b, '\n');
    key(o, "outside_ops");
    outside_ops(b, s);
    key(o, "threads");
    threads(b, s);
    key(o, "modules");
    modules(b, s);
    tp_buf_putc(b, '\n');
    key(o, "gpu");
    gpu(b, &s->gpu);
    tp_buf_puts(b, "}\n");
    if (t)
        modtab_free(t);
}
