/* A call site's identity across runs and processes, for `tprof diff` and `tprof merge`.
 *
 * Each frame counts as function@file:line where the line is known, else function@module, else
 * module+0xoffset; files and modules by their base name only, so that the same program built in
 * another directory (or installed elsewhere) still matches. Frames are joined with '|'. A function
 * the compiler inlined is a frame like the others, with its own line, and the frame after it has
 * the line of the call: two calls of one inlined helper are two keys, and the key does not say
 * inlined, so that a build that did not inline the helper has the same. */
#ifndef TPROF_SITEKEY_H
#define TPROF_SITEKEY_H

#include <stddef.h>

#include "report/report.h"

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
