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

/* A change between two runs and whether it is more than noise (cli/diff/diff_stat.c): known 0
 * when the reports do not hold what it takes; change, lo and hi relative to the figure before
 * (0.2: 20% more), lo..hi its 95% interval. */
struct tp_dsig {
    int known, significant;
    double change, lo, hi;
};
/* An op's time per call (its latency summaries: Welch's interval of the difference of means). */
void tp_diff_sig_mean(const struct tp_latency *a, const struct tp_latency *b, struct tp_dsig *s);
/* A step's median (significant when the two medians' 95% intervals do not overlap). */
void tp_diff_sig_median(const struct tp_latency *a, const struct tp_latency *b, struct tp_dsig *s);

/* An op on either side; a side where it is absent has has_x == 0 and zero figures. */
struct oprow {
    const char *name, *kind;
    int has_a, has_b;
    uint64_t calls[2], total[2], self[2], flops[2];
    const struct tp_latency *lat[2]; /* its time per call on each side (the first of a name) */
    struct tp_dsig per_call;         /* the change of its time per call */
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
    int rolled;            /* either report rolled sites up: the text shows the functions */
    struct tp_dsig step;   /* the change of the step's median */
    int all;               /* the text shows unchanged rows too (--all) */
    char warnings[2][300]; /* the two reports come from different programs or machines */
    int nwarnings;
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
/* The significant regressions past pct percent (an op's self time, the step's median, the heap
 * peak), one line each into lines (may be NULL): how many. */
size_t tp_diff_regressions(const struct tp_diff *d, const struct tp_report *a,
                           const struct tp_report *b, double pct, struct tp_buf *lines);

/* By function (cli/diff/diff_rollup.c): the rows, sorted by change in live bytes at the peak, then in
 * bytes allocated (0, or -1 when out of memory); whether r rolled up the function of s; the text
 * section (top rows) and the JSON array. */
int tp_diff_functions(const struct tp_report *a, const struct tp_report *b, struct tp_dfn_row **out,
                      size_t *n);
int tp_diff_site_rolled(const struct tp_report *r, const struct tp_site *s);
void tp_diff_functions_text(const struct tp_dfn_row *rows, size_t n, size_t top, struct tp_buf *b);
struct json_object *tp_diff_functions_json(const struct tp_dfn_row *rows, size_t n);

#endif
