/* Names of the functions the hooks saw, kept so that a setting naming a function nobody called
 * (a typo in TPROF_STEP or TPROF_OPS) can be told with the closest names that were called. */
#ifndef TPROF_SEEN_H
#define TPROF_SEEN_H

#include <stddef.h>

/* Record name (copied with tp_alloc; a C++ parameter list is cut). Lock-free and bounded: past
 * TP_SEEN_MAX distinct names, new ones are dropped. instrumented: an instrumented function that
 * ran (its every call is seen), not a shared-library import (which may never be called). */
#define TP_SEEN_MAX 4096
void tp_seen_add(const char *name, int instrumented);

/* How many names were kept. */
size_t tp_seen_count(void);
/* 1 once an instrumented function has run: then every instrumented function's calls are seen. */
int tp_seen_instrumented(void);

/* Up to max names closest to name by edit distance (an adjacent swap counts as one edit), nearest
 * first, and only those close enough to be a misspelling of it; into out (the names are never
 * freed). Returns how many. */
size_t tp_seen_closest(const char *name, const char **out, size_t max);

#endif
