/* Typed getters over json-c with key-path errors, for the report reader (cli/read/json_read.c).
 *
 * Every getter takes the context, the object, the key and the key path of the object ("" at the
 * top level, "ops[3]", "memory.sites[0]"); a key that is absent or null gives the default (0,
 * NULL, def) without an error; a value of the wrong type or out of range records the first
 * error in the context and gives the default. */
#ifndef TPROF_JSON_GET_H
#define TPROF_JSON_GET_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* Where errors go: err (errlen bytes) gets the first one; failed says there was one. */
struct tp_jget {
    char *err;
    size_t errlen;
    const char *file;
    int failed;
    /* a record's record.frame_modules, which its sites' "at" frames name by index */
    char **frame_modules;
    size_t nframe_modules;
    int record; /* reading a record: its sites may be strings */
};

/* Record "<file>: <path>: <what>" unless an error is already recorded. path may be NULL. */
void tp_jget_fail(struct tp_jget *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "found <what v is>", for messages, in out. */
const char *tp_jget_found(struct json_object *v, char *out, size_t n);

uint64_t tp_jget_u64(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
int64_t tp_jget_i64(struct tp_jget *c, struct json_object *o, const char *k, const char *path,
                    int64_t def);
/* A finite number. */
double tp_jget_dbl(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
/* Nanoseconds held as a double (a mean, a spread): finite, 0 or more, below 2^64. */
double tp_jget_dbl_ns(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
/* A copy of a string (malloc'd), NULL when absent or null. */
char *tp_jget_str(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
/* true or false (also 0 or 1). */
int tp_jget_boolean(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
/* A one-character string, 0 for null. */
char tp_jget_chr(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
/* A source line number, 0 to INT_MAX. */
int tp_jget_line(struct tp_jget *c, struct json_object *o, const char *k, const char *path);
/* An array (n its length), or NULL (n 0) when absent or null. */
struct json_object *tp_jget_array(struct tp_jget *c, struct json_object *o, const char *k,
                                  const char *path, size_t *n);
/* An object, or NULL when absent or null. */
struct json_object *tp_jget_object(struct tp_jget *c, struct json_object *o, const char *k,
                                   const char *path);
/* Element i of array a, which must be an object; path gets "<prefix>[i]". */
struct json_object *tp_jget_element(struct tp_jget *c, struct json_object *a, size_t i,
                                    const char *prefix, char *path, size_t pn);
/* calloc of n elements for an array read from the file; an error (not a crash) on failure. */
void *tp_jget_table(struct tp_jget *c, size_t n, size_t size, const char *p);
/* An array of strings into a fresh vector; *count is how many were read. */
char **tp_jget_strings(struct tp_jget *c, struct json_object *o, const char *k, const char *path,
                       size_t *count);

#endif
