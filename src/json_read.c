/* Reading a JSON report back into the model, with json-c. Every value is type-checked; the first
 * problem found is reported as "<file>: <key path>: <what is wrong>" and nothing is half-read.
 *
 * json-c is lenient where a report must not be: it clamps integers that do not fit 64 bits to
 * the nearest limit and accepts NaN and Infinity. Both are refused here (a clamped count would
 * be a silently wrong figure), so a value of exactly 2^64-1 (or, signed, +-2^63) is taken as
 * out of range: no real report holds one. */
#include "json_read.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fields.h"

/* Deepest valid report: root{ memory{ sites[ {frames[ {...} ] } ] } } is 6 levels. */
#define MAX_DEPTH 16

struct ctx {
    char *err;
    size_t errlen;
    const char *file;
    int failed;
};

static void fail(struct ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

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
    if (!c->errlen)
        return;
    snprintf(c->err, c->errlen, "%s: %s%s%s", c->file, path && *path ? path : "",
             path && *path ? ": " : "", what);
    /* One line, whatever the file name or a quoted value holds. */
    for (char *p = c->err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* "what was found instead", for messages. */
static const char *found(struct json_object *v, char *out, size_t n)
{
    switch (json_object_get_type(v)) {
    case json_type_int:
        if (json_object_get_int64(v) < 0)
            snprintf(out, n, "found %lld", (long long)json_object_get_int64(v));
        else
            snprintf(out, n, "found %llu", (unsigned long long)json_object_get_uint64(v));
        break;
    case json_type_double:
        snprintf(out, n, "found %.17g", json_object_get_double(v));
        break;
    case json_type_string: snprintf(out, n, "found a string"); break;
    case json_type_boolean: snprintf(out, n, "found %s", json_object_get_boolean(v) ? "true" : "false"); break;
    case json_type_object: snprintf(out, n, "found an object"); break;
    case json_type_array: snprintf(out, n, "found an array"); break;
    default: snprintf(out, n, "found null"); break;
    }
    return out;
}

/* The value of key k of object o, or NULL when absent or null; p gets the key's full path. */
static struct json_object *get(struct json_object *o, const char *k, const char *path, char *p,
                               size_t pn)
{
    struct json_object *v = NULL;
    snprintf(p, pn, "%s%s%s", path, *path ? "." : "", k);
    if (!o || !json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
        return NULL;
    return v;
}

static uint64_t as_u64(struct ctx *c, struct json_object *v, const char *p)
{
    char f[64];
    if (json_object_is_type(v, json_type_int)) {
        if (json_object_get_int64(v) < 0) {
            fail(c, p, "expected an unsigned integer, %s", found(v, f, sizeof f));
            return 0;
        }
        uint64_t u = json_object_get_uint64(v);
        if (u == UINT64_MAX) {
            fail(c, p, "number out of range (the largest is 18446744073709551614)");
            return 0;
        }
        return u;
    }
    /* Another writer may print a large count as 1e+09; an integral double is still exact. */
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (d >= 0 && d < 18446744073709551616.0 && d == floor(d))
            return (uint64_t)d;
    }
    fail(c, p, "expected an unsigned integer, %s", found(v, f, sizeof f));
    return 0;
}

static uint64_t u64(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char p[320];
    struct json_object *v = get(o, k, path, p, sizeof p);
    return v ? as_u64(c, v, p) : 0;
}

static int64_t i64(struct ctx *c, struct json_object *o, const char *k, const char *path, int64_t def)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    if (!v)
        return def;
    if (json_object_is_type(v, json_type_int)) {
        int64_t x = json_object_get_int64(v);
        if (x == INT64_MAX || x == INT64_MIN) {
            fail(c, p, "number out of range for a signed 64-bit integer");
            return def;
        }
        return x;
    }
    fail(c, p, "expected an integer, %s", found(v, f, sizeof f));
    return def;
}

static double dbl(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    if (!v)
        return 0;
    if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
        double d = json_object_get_double(v);
        if (isfinite(d))
            return d;
        fail(c, p, "expected a finite number, %s", found(v, f, sizeof f));
        return 0;
    }
    fail(c, p, "expected a number, %s", found(v, f, sizeof f));
    return 0;
}

/* A duration in nanoseconds held as a double (a mean, a spread): finite, 0 or more, and below
 * 2^64 so that it converts to uint64_t without undefined behaviour. */
static double dbl_ns(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char p[320];
    double d = dbl(c, o, k, path);
    if (d < 0 || d >= 18446744073709551616.0) {
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
        fail(c, p, "expected nanoseconds (0 to 2^64), found %.17g", d);
        return 0;
    }
    return d;
}

static char *copy(struct ctx *c, const char *s, const char *p)
{
    char *d = strdup(s);
    if (!d)
        fail(c, p, "out of memory");
    return d;
}

static char *str(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    if (!v)
        return NULL;
    if (!json_object_is_type(v, json_type_string)) {
        fail(c, p, "expected a string, %s", found(v, f, sizeof f));
        return NULL;
    }
    return copy(c, json_object_get_string(v), p);
}

static int boolean(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    if (!v)
        return 0;
    if (json_object_is_type(v, json_type_boolean))
        return json_object_get_boolean(v);
    /* 0 and 1 are what a C writer might print for a flag. */
    if (json_object_is_type(v, json_type_int) &&
        (json_object_get_int64(v) == 0 || json_object_get_int64(v) == 1))
        return (int)json_object_get_int64(v);
    fail(c, p, "expected true or false, %s", found(v, f, sizeof f));
    return 0;
}

/* transa, transb, layout: a one-character string, or null for "not applicable". */
static char chr(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string)) {
        fail(c, p, "expected a one-character string, %s", found(v, f, sizeof f));
        return 0;
    }
    if (json_object_get_string_len(v) != 1) {
        fail(c, p, "expected a one-character string, found \"%.20s\"", json_object_get_string(v));
        return 0;
    }
    return json_object_get_string(v)[0];
}

/* A member that must be an array (or absent/null: NULL, no error). */
static struct json_object *array(struct ctx *c, struct json_object *o, const char *k,
                                 const char *path, size_t *n)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    *n = 0;
    if (!v)
        return NULL;
    if (!json_object_is_type(v, json_type_array)) {
        fail(c, p, "expected an array, %s", found(v, f, sizeof f));
        return NULL;
    }
    *n = json_object_array_length(v);
    return v;
}

static struct json_object *object(struct ctx *c, struct json_object *o, const char *k,
                                  const char *path)
{
    char p[320], f[64];
    struct json_object *v = get(o, k, path, p, sizeof p);
    if (!v)
        return NULL;
    if (!json_object_is_type(v, json_type_object)) {
        fail(c, p, "expected an object, %s", found(v, f, sizeof f));
        return NULL;
    }
    return v;
}

/* Element i of array a, which must be an object; path gets "<prefix>[i]". */
static struct json_object *element(struct ctx *c, struct json_object *a, size_t i,
                                   const char *prefix, char *path, size_t pn)
{
    char f[64];
    struct json_object *e = json_object_array_get_idx(a, i);
    snprintf(path, pn, "%.200s[%zu]", prefix, i);
    if (e && json_object_is_type(e, json_type_object))
        return e;
    fail(c, path, "expected an object, %s", e ? found(e, f, sizeof f) : "found null");
    return NULL;
}

/* calloc for n elements of an array read from the file; an error (not a crash) when it fails. */
static void *table(struct ctx *c, size_t n, size_t size, const char *p)
{
    void *t = calloc(n ? n : 1, size);
    if (!t)
        fail(c, p, "out of memory for %zu elements", n);
    return t;
}

/* A source line: an integer from 0 to INT_MAX (0 when absent). */
static int line(struct ctx *c, struct json_object *o, const char *k, const char *path)
{
    int64_t v = i64(c, o, k, path, 0);
    if (v < 0 || v > INT_MAX) {
        char p[340];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
        fail(c, p, "expected a line number (0 to %d), found %lld", INT_MAX, (long long)v);
        return 0;
    }
    return (int)v;
}

/* An array of strings into a fresh vector; *count is how many were read. */
static char **strings(struct ctx *c, struct json_object *o, const char *k, const char *path,
                      size_t *count)
{
    char pre[320], sub[340], f[64];
    size_t n;
    struct json_object *a = array(c, o, k, path, &n);
    snprintf(pre, sizeof pre, "%s%s%s", path, *path ? "." : "", k);
    *count = 0;
    if (!n || c->failed)
        return NULL;
    char **v = table(c, n, sizeof *v, pre);
    for (size_t i = 0; v && i < n && !c->failed; i++) {
        struct json_object *e = json_object_array_get_idx(a, i);
        snprintf(sub, sizeof sub, "%.200s[%zu]", pre, i);
        if (!e || !json_object_is_type(e, json_type_string)) {
            fail(c, sub, "expected a string, %s", e ? found(e, f, sizeof f) : "found null");
            break;
        }
        if ((v[*count] = copy(c, json_object_get_string(e), sub)))
            (*count)++;
    }
    return v;
}

/* One scalar of a src/fields.h list: key #f of json object o (at path) into struct s, with the
 * context c (all named so by every caller). */
#define R_U64(f, d) s->f = u64(c, o, #f, path);
#define R_I64(f, d) s->f = i64(c, o, #f, path, d);
#define R_LINE(f, d) s->f = line(c, o, #f, path);
#define R_DBL(f, d) s->f = dbl(c, o, #f, path);
#define R_NS(f, d) s->f = dbl_ns(c, o, #f, path);
#define R_BOOL(f, d) s->f = boolean(c, o, #f, path);
#define R_CHR(f, d) s->f = chr(c, o, #f, path);
#define R_STR(f, d) s->f = str(c, o, #f, path);
#define READ(KIND, f, d) R_##KIND(f, d)

/* Member k of o, an array of objects, into a fresh table of n elements of size, each read by
 * one(c, element, its path, &table[i]); *count is how many were read. */
static void *objects(struct ctx *c, struct json_object *o, const char *k, const char *path,
                     size_t size, size_t *count,
                     void (*one)(struct ctx *, struct json_object *, const char *, void *))
{
    char pre[320], sub[340];
    size_t n;
    struct json_object *a = array(c, o, k, path, &n);
    snprintf(pre, sizeof pre, "%.200s%s%s", path, *path ? "." : "", k);
    *count = 0;
    char *t;
    if (!n || c->failed || !(t = table(c, n, size, pre)))
        return NULL;
    for (size_t i = 0; i < n && !c->failed; i++) {
        struct json_object *e = element(c, a, i, pre, sub, sizeof sub);
        if (!e)
            break;
        one(c, e, sub, t + size * (*count)++);
    }
    return t;
}

static void latency(struct ctx *c, struct json_object *parent, const char *k, const char *at,
                    struct tp_latency *s)
{
    char path[320];
    struct json_object *o = object(c, parent, k, at);
    if (!o)
        return;
    snprintf(path, sizeof path, "%s%s%s", at, *at ? "." : "", k);
    TP_LATENCY_FIELDS(READ)
}

static void read_shape(struct ctx *c, struct json_object *o, const char *path, void *v)
{
    struct tp_shape *s = v;
    TP_SHAPE_FIELDS(READ)
}

static void read_op(struct ctx *c, struct json_object *o, const char *path, void *v)
{
    struct tp_op *s = v;
    TP_OP_FIELDS(READ)
    if (!s->name && !c->failed)
        fail(c, path, "an op needs a \"name\"");
    latency(c, o, "latency_ns", path, &s->latency);
    s->shapes = objects(c, o, "shapes", path, sizeof *s->shapes, &s->nshapes, read_shape);
}

static void read_frame(struct ctx *c, struct json_object *o, const char *path, void *v)
{
    struct tp_frame *s = v;
    TP_FRAME_FIELDS(READ)
}

static void read_site(struct ctx *c, struct json_object *o, const char *path, void *v)
{
    struct tp_site *s = v;
    s->frames = objects(c, o, "frames", path, sizeof *s->frames, &s->nframes, read_frame);
    TP_SITE_FIELDS(READ)
}

static void read_memory(struct ctx *c, struct json_object *o, const char *path, struct tp_memory *s)
{
    TP_MEMORY_FIELDS(READ)
    s->sites = objects(c, o, "sites", path, sizeof *s->sites, &s->nsites, read_site);
}

static void read_amdahl(struct ctx *c, struct json_object *o, const char *path, void *v)
{
    struct tp_amdahl *s = v;
    TP_AMDAHL_FIELDS(READ)
}

static void read_verdict(struct ctx *c, struct json_object *o, const char *path, struct tp_verdict *s)
{
    TP_VERDICT_FIELDS(READ)
    s->amdahl = objects(c, o, "amdahl", path, sizeof *s->amdahl, &s->namdahl, read_amdahl);
}

static void read_opstack(struct ctx *c, struct json_object *o, const char *path, void *v)
{
    struct tp_opstack *s = v;
    s->ops = strings(c, o, "ops", path, &s->depth);
    TP_OPSTACK_FIELDS(READ)
}

static void read_program(struct ctx *c, struct json_object *o, const char *path, struct tp_program *s)
{
    s->argv = strings(c, o, "argv", path, &s->argc);
    TP_PROGRAM_FIELDS(READ)
}

static void read_machine(struct ctx *c, struct json_object *o, const char *path, struct tp_machine *s)
{
    TP_MACHINE_FIELDS(READ)
}

static void read_steps(struct ctx *c, struct json_object *o, const char *path, struct tp_steps *s)
{
    TP_STEPS_FIELDS(READ)
    latency(c, o, "latency_ns", path, &s->latency);
    TP_STEPS_WINDOW_FIELDS(READ)
}

static void read_outputs(struct ctx *c, struct json_object *o, const char *path, struct tp_outputs *s)
{
    TP_OUTPUTS_FIELDS(READ)
}

/* "schema": present, an integer, and one this tprof reads. */
static int read_schema(struct ctx *c, struct json_object *root, struct tp_report *r)
{
    char f[64];
    if (!json_object_is_type(root, json_type_object)) {
        fail(c, NULL, "not a tprof report (the top level is %s, not an object)",
             found(root, f, sizeof f) + 6);
        return -1;
    }
    struct json_object *schema = NULL;
    if (!json_object_object_get_ex(root, "schema", &schema)) {
        fail(c, NULL, "not a tprof report (no \"schema\" key)");
        return -1;
    }
    if (!json_object_is_type(schema, json_type_int)) {
        fail(c, "schema", "expected an integer, %s", found(schema, f, sizeof f));
        return -1;
    }
    int64_t v = json_object_get_int64(schema);
    if (v > TP_SCHEMA_VERSION) {
        fail(c, NULL, "schema %lld is newer than this tprof understands (%d)", (long long)v,
             TP_SCHEMA_VERSION);
        return -1;
    }
    if (v < 1) {
        fail(c, NULL, "schema %lld is not a tprof schema (this tprof reads %d)", (long long)v,
             TP_SCHEMA_VERSION);
        return -1;
    }
    r->schema = (int)v;
    return 0;
}

static void read_report(struct ctx *c, struct json_object *o, struct tp_report *s)
{
    const char *path = "";
    struct json_object *x;
    if (read_schema(c, o, s) < 0)
        return;
    TP_REPORT_FIELDS(READ)
    s->notes = strings(c, o, "notes", path, &s->nnotes);
    if ((x = object(c, o, "program", path)))
        read_program(c, x, "program", &s->program);
    if ((x = object(c, o, "machine", path)))
        read_machine(c, x, "machine", &s->machine);
    s->ops = objects(c, o, "ops", path, sizeof *s->ops, &s->nops, read_op);
    if ((x = object(c, o, "memory", path)))
        read_memory(c, x, "memory", &s->memory);
    if ((x = object(c, o, "steps", path)))
        read_steps(c, x, "steps", &s->steps);
    /* The verdict is derived (tp_analyze() recomputes it), but it is read so that the model
     * holds everything the file says. */
    if ((x = object(c, o, "verdict", path)))
        read_verdict(c, x, "verdict", &s->verdict);
    s->opstacks = objects(c, o, "op_stacks", path, sizeof *s->opstacks, &s->nopstacks,
                          read_opstack);
    s->opstacks_dropped = u64(c, o, "op_stacks_dropped", path);
    if ((x = object(c, o, "outputs", path)))
        read_outputs(c, x, "outputs", &s->outputs);
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

int tp_report_parse_json(const char *name, const char *buf, size_t len, struct tp_report *r,
                         char *err, size_t errlen)
{
    struct ctx c = {err, errlen, name, 0};
    size_t line, col;
    tp_report_init(r);
    if (errlen)
        err[0] = 0;
    if (len == 0) {
        fail(&c, NULL, "empty file");
        return -1;
    }
    if (len > TP_JSON_MAX_BYTES) {
        fail(&c, NULL, "larger than %llu MiB: not a tprof report", TP_JSON_MAX_BYTES >> 20);
        return -1;
    }
    /* Reports are often compressed for storage: say so rather than "not JSON". */
    static const struct {
        const char *magic, *tool;
        size_t n;
    } packed[] = {{"\x1f\x8b", "gzip", 2}, {"\x28\xb5\x2f\xfd", "zstd", 4}, {"\xfd" "7zXZ", "xz", 5}};
    for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++)
        if (len >= packed[i].n && !memcmp(buf, packed[i].magic, packed[i].n)) {
            fail(&c, NULL, "compressed with %s: uncompress it first", packed[i].tool);
            return -1;
        }
    size_t ws = 0;
    while (ws < len && (buf[ws] == ' ' || buf[ws] == '\n' || buf[ws] == '\t' || buf[ws] == '\r'))
        ws++;
    if (ws == len) {
        fail(&c, NULL, "empty file (white space only)");
        return -1;
    }
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
        fail(&c, NULL, "out of memory");
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
            fail(&c, NULL, "not JSON (line %zu, column %zu: a NUL byte; binary data?)", line, col);
        } else if (eof) {
            fail(&c, NULL, "truncated (the JSON ends early, at line %zu)", line);
        } else if (jerr == json_tokener_error_depth) {
            fail(&c, NULL, "not a tprof report (line %zu, column %zu: nested deeper than %d "
                           "levels)", line, col, MAX_DEPTH);
        } else {
            fail(&c, NULL, "not JSON (line %zu, column %zu: %s)", line, col,
                 json_tokener_error_desc(jerr));
        }
        if (root)
            json_object_put(root);
        return -1;
    }
    /* Anything but white space after the document is corruption, not a second document. */
    size_t rest = end;
    while (rest < len && (buf[rest] == ' ' || buf[rest] == '\n' || buf[rest] == '\t' ||
                          buf[rest] == '\r'))
        rest++;
    if (rest < len) {
        position(buf, len, rest, &line, &col);
        fail(&c, NULL, "not JSON (line %zu, column %zu: %s)", line, col,
             buf[rest] ? "more data after the report" : "a NUL byte; binary data?");
        json_object_put(root);
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

int tp_report_read_json(const char *path, struct tp_report *r, char *err, size_t errlen)
{
    int is_stdin = !strcmp(path, "-");
    struct ctx c = {err, errlen, is_stdin ? "<stdin>" : path, 0};
    tp_report_init(r);
    FILE *f = is_stdin ? stdin : fopen(path, "re");
    if (!f) {
        fail(&c, NULL, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!is_stdin)
            fclose(f);
        fail(&c, NULL, "is a directory, not a report");
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
        fail(&c, NULL, "out of memory reading it");
    else if (rerr)
        fail(&c, NULL, "cannot read: %s", strerror(rerr));
    else if (too_big)
        fail(&c, NULL, "larger than %llu MiB: not a tprof report", TP_JSON_MAX_BYTES >> 20);
    else
        rc = tp_report_parse_json(c.file, buf, len, r, err, errlen);
    free(buf);
    return rc;
}
