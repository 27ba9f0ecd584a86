/* Reading reports back: the JSON reader and a call site's identity across runs: the one header of cli/read/ for code outside it. */
#ifndef TPROF_CLI_READ_READ
#define TPROF_CLI_READ_READ

#include <stddef.h>

#include "report/report.h"

/* Read a JSON report (docs/json-shape.md) into the model. CLI only (json-c).
 *
 * Every key of schema 1 is read; a missing key takes the model's default (0, NULL, -1 for pid,
 * ppid and the step window). Unknown keys are ignored, so newer writers may add keys within a
 * schema. The first problem found is reported as one line, "<file>: <what is wrong>" or
 * "<file>: <key path>: <what is wrong>" (e.g. "run.json: ops[3].calls: expected an unsigned
 * integer, found a string"), and the model is left empty: nothing is ever half-read. */
/* Reports larger than this are refused (no tprof report comes near it). */
#define TP_JSON_MAX_BYTES (1ull << 30)

/* 0, or -1 with one line in err. path "-" is stdin (shown as "<stdin>"). */
int tp_report_read_json(const char *path, struct tp_report *r, char *err, size_t errlen);
/* The same from memory: buf holds len bytes (need not be NUL-terminated); name is the file name
 * used in messages. */
int tp_report_parse_json(const char *name, const char *buf, size_t len, struct tp_report *r,
                         char *err, size_t errlen);

/* A call site's identity across runs and processes, for `tprof diff` and `tprof merge`.
 *
 * Each frame counts as function@file:line where the line is known, else function@module, else
 * module+0xoffset; files and modules by their base name only, so that the same program built in
 * another directory (or installed elsewhere) still matches. Frames are joined with '|'. A function
 * the compiler inlined is a frame like the others, with its own line, and the frame after it has
 * the line of the call: two calls of one inlined helper are two keys, and the key does not say
 * inlined, so that a build that did not inline the helper has the same. */
/* The key of s, malloc'd (NULL when out of memory). */
char *tp_site_key(const struct tp_site *s);

/* A report's sites grouped by key: sites with one key add up into one (the frames are those of
 * the first; counts, bytes and live figures are summed, which is exact for all but a group's own
 * peak, where the sum is an upper bound). Sorted by key. */
struct tp_keyed_site {
    char *key;
    struct tp_site site; /* frames borrowed from the report: do not free them */
    size_t nmerged;      /* sites of the report that went into this one */
};
/* 0 and *out (n entries), or -1 when out of memory. */
int tp_sites_by_key(const struct tp_site *sites, size_t nsites, struct tp_keyed_site **out,
                    size_t *n);
void tp_keyed_sites_free(struct tp_keyed_site *k, size_t n);

#endif
