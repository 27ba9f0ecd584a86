/* Building a pprof profile (report/pprof/profile.proto) and writing it gzipped
 * (report/pprof/pprof_build.c): the string table, functions, locations and mappings kept unique
 * by a key, samples with labels, and the rules readers hold a file to (string_table[0] is "",
 * ids nonzero and unique, one value per sample type). It knows nothing of tprof's report: what
 * goes in is report/pprof/render_pprof.c's.
 *
 * Every table is sized once, by the most the caller says it may add; past that an addition
 * returns 0 (no id) rather than grow. Strings are kept by pointer: they must outlive the builder
 * (the report's, the builder's own from tp_pprof_printf, or literals). */
#ifndef TPROF_PPROF_BUILD_H
#define TPROF_PPROF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct tp_pprof;

/* A builder whose tables hold at most these many entries. NULL when memory ran out. */
struct tp_pprof *tp_pprof_new(size_t strings, size_t functions, size_t locations, size_t mappings,
                              size_t samples, size_t comments);
void tp_pprof_free(struct tp_pprof *p);
/* A string of the builder's own, freed with it; NULL when memory ran out. */
char *tp_pprof_printf(struct tp_pprof *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The sample types (the last one the default) and the period's type; the period is 1: every
 * event counted, none sampled. */
void tp_pprof_types(struct tp_pprof *p, const char *const *types, const char *const *units,
                    size_t n, const char *period_type, const char *period_unit);
void tp_pprof_times(struct tp_pprof *p, int64_t time_nanos, int64_t duration_nanos);
void tp_pprof_comment(struct tp_pprof *p, const char *text);

/* The function of this name and source file (NULL: none), added when new: its id, 0 when the
 * table is full. */
uint64_t tp_pprof_function(struct tp_pprof *p, const char *name, const char *file);
/* The mapping of this file, added when new with the address range it was loaded at and its
 * build-id (NULL: none), marked as named (readers never symbolise it): its id, 0 when full. */
uint64_t tp_pprof_mapping(struct tp_pprof *p, const char *file, uint64_t start, uint64_t limit,
                          const char *build_id);

/* One line of a location: a function (its id) at a line of its source (0: unknown). */
struct tp_pprof_line {
    uint64_t function;
    int64_t line;
};
/* The location known by key (a string naming it uniquely, kept by pointer), 0 when none yet. */
uint64_t tp_pprof_location_find(struct tp_pprof *p, const char *key);
/* Add the location key names: at address in mapping (0: none), its lines the innermost inlined
 * function first. Its id, 0 when a table is full. */
uint64_t tp_pprof_location(struct tp_pprof *p, const char *key, uint64_t mapping, uint64_t address,
                           const struct tp_pprof_line *lines, size_t nlines);
/* The location that is only a name (an op, a made-up root), added when new; 0 when full. */
uint64_t tp_pprof_name_location(struct tp_pprof *p, const char *name);

/* A label: a string (str non-NULL) or a number with its unit (NULL: none). */
struct tp_pprof_label {
    const char *key, *str;
    int64_t num;
    const char *unit;
};
/* Add a sample: its locations the leaf first (ids of 0, which a full table gave, are left out),
 * one value per sample type. 0, or -1 when the table is full or memory ran out. */
int tp_pprof_sample(struct tp_pprof *p, const uint64_t *locations, size_t nlocations,
                    const int64_t *values, const struct tp_pprof_label *labels, size_t nlabels);

/* The profile, packed and gzipped, appended to b: 0, or -1 when memory ran out on the way (then
 * b holds nothing new). */
int tp_pprof_write(struct tp_pprof *p, struct tp_buf *b);

#endif
