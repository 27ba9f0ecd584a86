/* The model of `tprof diff`: two reports matched op by op (by name) and site by site (by
 * frames), with the text and JSON forms. cli/cmd_diff.c reads the arguments and the files; the
 * fuzz target calls this directly. */
#ifndef TPROF_DIFF_H
#define TPROF_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "report/report.h"
#include "cli/read/read.h"

struct json_object;

/* An op on either side; a side where it is absent has has_x == 0 and zero figures. */
struct oprow {
    const char *name, *kind;
    int has_a, has_b;
    uint64_t calls[2], total[2], self[2], flops[2];
};

/* A call site on either side (NULL where absent). */
struct siterow {
    const struct tp_keyed_site *a, *b;
    int rolled; /* the side where it is absent rolled its function up: its figure is unknown */
};

/* A function and module on either side: the call sites written one by one whose first frame that
 * was not inlined is in it, plus the report's rolled-up row for it (cli/diff/diff_rollup.c). */
struct tp_dfn_row {
    const char *function, *module; /* NULL when unknown; module by base name */
    int has_a, has_b;
    int rolled[2]; /* that side rolled some of its sites up */
    uint64_t sites[2], allocs[2], bytes[2], live_at_peak[2], live_at_exit[2];
};

/* Rows sorted biggest change first; points into the two reports, which must outlive it. */
struct tp_diff {
    struct oprow *ops;
    size_t nops;
    struct tp_keyed_site *ka, *kb;
    size_t na, nb;
    struct siterow *sites;
    size_t nsites;
    struct tp_dfn_row *fns;
    size_t nfns;
    int rolled; /* either report rolled sites up: the text shows the functions */
};

/* 0, or -1 when out of memory (d then holds nothing to free). */
int tp_diff_build(const struct tp_report *a, const struct tp_report *b, struct tp_diff *d);
/* The text form, top rows per section, appended to out; fa and fb name the two files. */
void tp_diff_text(const struct tp_diff *d, const char *fa, const char *fb,
                  const struct tp_report *a, const struct tp_report *b, size_t top,
                  struct tp_buf *out);
/* The JSON form (docs/cli.md), a new json-c object the caller puts. */
struct json_object *tp_diff_json(const struct tp_diff *d, const char *fa, const char *fb,
                                 const struct tp_report *a, const struct tp_report *b);
void tp_diff_free(struct tp_diff *d);

/* By function (cli/diff/diff_rollup.c): the rows, sorted by change in live bytes at the peak, then in
 * bytes allocated (0, or -1 when out of memory); whether r rolled up the function of s; the text
 * section (top rows) and the JSON array. */
int tp_diff_functions(const struct tp_report *a, const struct tp_report *b, struct tp_dfn_row **out,
                      size_t *n);
int tp_diff_site_rolled(const struct tp_report *r, const struct tp_site *s);
void tp_diff_functions_text(const struct tp_dfn_row *rows, size_t n, size_t top, struct tp_buf *b);
struct json_object *tp_diff_functions_json(const struct tp_dfn_row *rows, size_t n);

#endif
