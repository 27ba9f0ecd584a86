/* Typed getters over json-c for the report reader (cli/read/json_read.c): each checks the type and
 * range of one value and, on the first problem, records one line "<file>: <key path>: <what is
 * wrong>" in the context; later problems are ignored, so the first one is what the user sees.
 *
 * json-c is lenient where a report must not be: it clamps integers that do not fit 64 bits to
 * the nearest limit and accepts NaN and Infinity. Both are refused here (a clamped count would
 * be a silently wrong figure), so a value of exactly 2^64-1 (or, signed, +-2^63) is taken as
 * out of range: no real report holds one. */
#include "cli/read/json_get.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"

void tp_jget_fail(struct tp_jget *c, const char *path, const char *fmt, ...)
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
    char raw[1024];
    snprintf(raw, sizeof raw, "%s: %s%s%s", c->file, path && *path ? path : "",
             path && *path ? ": " : "", what);
    /* One line, whatever the file name, a key or a quoted value holds: escaped here, once
     * (common/out/escape.c); the commands print it as it is. */
    tp_escape_str(c->err, c->errlen, raw);
}

/* "what was found instead", for messages. */
const char *tp_jget_found(struct json_object *v, char *out, size_t n)
{
    switch (json_object_get_type(v)) {
    case json_type_int:
        if (json_object_get_int64(v) < 0)
            snprintf(out, n, "found %lld", (long long)json_object_get_int64(v));
        else
            snprintf(out, n, "found %llu", (unsigned long long)json_object_get_uint64(v));
        break;
    case json_type_double: snprintf(out, n, "found %.17g", json_object_get_double(v)); break;
    case json_type_string: snprintf(out, n, "found a string"); break;
    case json_type_boolean:
        snprintf(out, n, "found %s", json_object_get_boolean(v) ? "true" : "false");
        break;
    case json_type_object: snprintf(out, n, "found an object"); break;
    case json_type_array: snprintf(out, n, "found an array"); break;
    default: snprintf(out, n, "found null"); break;
    }
    return out;
}

/* The value of key k of object o, or NULL when absent or null; p gets the key's full path. */
static struct json_object *get(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    if (!o || !json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
        return NULL;
    return v;
}

/* "path.k" into p, for a message: made only when there is one to give (a report has tens of
 * thousands of keys, and printing each one's path was a quarter of the time spent reading). */
static const char *key_path(char *p, size_t pn, const char *path, const char *k)
{
    snprintf(p, pn, "%s%s%s", path, *path && *k ? "." : "", k);
    return p;
}

static uint64_t as_u64(struct tp_jget *c, struct json_object *v, const char *path, const char *k)
{
    char f[64], p[400];
    if (json_object_is_type(v, json_type_int)) {
        if (json_object_get_int64(v) < 0) {
            tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected an unsigned integer, %s",
                         tp_jget_found(v, f, sizeof f));
            return 0;
        }
        uint64_t u = json_object_get_uint64(v);
        if (u == UINT64_MAX) {
            tp_jget_fail(c, key_path(p, sizeof p, path, k),
                         "number out of range (the largest is 18446744073709551614)");
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
    tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected an unsigned integer, %s",
                 tp_jget_found(v, f, sizeof f));
    return 0;
}

uint64_t tp_jget_u64(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    struct json_object *v = get(o, k);
    return v ? as_u64(c, v, path, k) : 0;
}

int64_t tp_jget_i64(struct tp_jget *c, struct json_object *o, const char *k, const char *path,
                    int64_t def)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    if (!v)
        return def;
    if (json_object_is_type(v, json_type_int)) {
        int64_t x = json_object_get_int64(v);
        if (x == INT64_MAX || x == INT64_MIN) {
            tp_jget_fail(c, key_path(p, sizeof p, path, k),
                         "number out of range for a signed 64-bit integer");
            return def;
        }
        return x;
    }
    tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected an integer, %s",
                 tp_jget_found(v, f, sizeof f));
    return def;
}

double tp_jget_dbl(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    if (!v)
        return 0;
    if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
        double d = json_object_get_double(v);
        if (isfinite(d))
            return d;
        tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected a finite number, %s",
                     tp_jget_found(v, f, sizeof f));
        return 0;
    }
    tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected a number, %s",
                 tp_jget_found(v, f, sizeof f));
    return 0;
}

/* A duration in nanoseconds held as a double (a mean, a spread): finite, 0 or more, and below
 * 2^64 so that it converts to uint64_t without undefined behaviour. */
double tp_jget_dbl_ns(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    char p[400];
    double d = tp_jget_dbl(c, o, k, path);
    if (d < 0 || d >= 18446744073709551616.0) {
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
        tp_jget_fail(c, key_path(p, sizeof p, path, k),
                     "expected nanoseconds (0 to 2^64), found %.17g", d);
        return 0;
    }
    return d;
}

static char *copy(struct tp_jget *c, const char *s, const char *path, const char *k)
{
    char p[400];
    char *d = strdup(s);
    if (!d)
        tp_jget_fail(c, key_path(p, sizeof p, path, k), "out of memory");
    return d;
}

char *tp_jget_str(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    if (!v)
        return NULL;
    if (!json_object_is_type(v, json_type_string)) {
        tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected a string, %s",
                     tp_jget_found(v, f, sizeof f));
        return NULL;
    }
    return copy(c, json_object_get_string(v), path, k);
}

int tp_jget_boolean(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    if (!v)
        return 0;
    if (json_object_is_type(v, json_type_boolean))
        return json_object_get_boolean(v);
    /* 0 and 1 are what a C writer might print for a flag. */
    if (json_object_is_type(v, json_type_int) &&
        (json_object_get_int64(v) == 0 || json_object_get_int64(v) == 1))
        return (int)json_object_get_int64(v);
    tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected true or false, %s",
                 tp_jget_found(v, f, sizeof f));
    return 0;
}

/* transa, transb, layout: a one-character string, or null for "not applicable". */
char tp_jget_chr(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string)) {
        tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected a one-character string, %s",
                     tp_jget_found(v, f, sizeof f));
        return 0;
    }
    if (json_object_get_string_len(v) != 1) {
        tp_jget_fail(c, key_path(p, sizeof p, path, k),
                     "expected a one-character string, found \"%.20s\"", json_object_get_string(v));
        return 0;
    }
    return json_object_get_string(v)[0];
}

/* A member that must be an array (or absent/null: NULL, no error). */
struct json_object *tp_jget_array(struct tp_jget *c, struct json_object *o, const char *k,
                                  const char *path, size_t *n)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    *n = 0;
    if (!v)
        return NULL;
    if (!json_object_is_type(v, json_type_array)) {
        tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected an array, %s",
                     tp_jget_found(v, f, sizeof f));
        return NULL;
    }
    *n = json_object_array_length(v);
    return v;
}

struct json_object *tp_jget_object(struct tp_jget *c, struct json_object *o, const char *k,
                                   const char *path)
{
    char p[400], f[64];
    struct json_object *v = get(o, k);
    if (!v)
        return NULL;
    if (!json_object_is_type(v, json_type_object)) {
        tp_jget_fail(c, key_path(p, sizeof p, path, k), "expected an object, %s",
                     tp_jget_found(v, f, sizeof f));
        return NULL;
    }
    return v;
}

/* Element i of array a, which must be an object; path gets "<prefix>[i]". */
struct json_object *tp_jget_element(struct tp_jget *c, struct json_object *a, size_t i,
                                    const char *prefix, char *path, size_t pn)
{
    char f[64];
    struct json_object *e = json_object_array_get_idx(a, i);
    snprintf(path, pn, "%.200s[%zu]", prefix, i);
    if (e && json_object_is_type(e, json_type_object))
        return e;
    tp_jget_fail(c, path, "expected an object, %s",
                 e ? tp_jget_found(e, f, sizeof f) : "found null");
    return NULL;
}

/* calloc for n elements of an array read from the file; an error (not a crash) when it fails. */
void *tp_jget_table(struct tp_jget *c, size_t n, size_t size, const char *p)
{
    void *t = calloc(n ? n : 1, size);
    if (!t)
        tp_jget_fail(c, p, "out of memory for %zu elements", n);
    return t;
}

/* A source line: an integer from 0 to INT_MAX (0 when absent). */
int tp_jget_line(struct tp_jget *c, struct json_object *o, const char *k, const char *path)
{
    int64_t v = tp_jget_i64(c, o, k, path, 0);
    if (v < 0 || v > INT_MAX) {
        char p[340];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", k);
        tp_jget_fail(c, p, "expected a line number (0 to %d), found %lld", INT_MAX, (long long)v);
        return 0;
    }
    return (int)v;
}

/* An array of strings into a fresh vector; *count is how many were read. */
char **tp_jget_strings(struct tp_jget *c, struct json_object *o, const char *k, const char *path,
                       size_t *count)
{
    char pre[320], sub[340], f[64];
    size_t n;
    struct json_object *a = tp_jget_array(c, o, k, path, &n);
    snprintf(pre, sizeof pre, "%s%s%s", path, *path ? "." : "", k);
    *count = 0;
    if (!n || c->failed)
        return NULL;
    char **v = tp_jget_table(c, n, sizeof *v, pre);
    for (size_t i = 0; v && i < n && !c->failed; i++) {
        struct json_object *e = json_object_array_get_idx(a, i);
        snprintf(sub, sizeof sub, "%.200s[%zu]", pre, i);
        if (!e || !json_object_is_type(e, json_type_string)) {
            tp_jget_fail(c, sub, "expected a string, %s",
                         e ? tp_jget_found(e, f, sizeof f) : "found null");
            break;
        }
        if ((v[*count] = copy(c, json_object_get_string(e), sub, "")))
            (*count)++;
    }
    return v;
}
