/* Leak suppressions in LeakSanitizer's file format (TPROF_SUPPRESS): one `leak:pattern` per line,
 * `#` comments, blank lines; a pattern matches a function name, a source file or a module path
 * of any frame of a call site as LSan matches it: a substring, `*` any run of characters, `^`
 * anchoring the start and `$` the end. */
#ifndef TPROF_SUPPRESS_H
#define TPROF_SUPPRESS_H

#include <stddef.h>

/* Parse a suppression file's text into its patterns, one per line of *out (malloc'd; NULL when
 * the file has none). 0, or -1 with why (naming the line) and *out NULL. */
int tp_suppress_parse(const char *text, char **out, char *why, size_t whylen);
/* Read and parse the file at path (at most 1 MiB): as tp_suppress_parse. */
int tp_suppress_load(const char *path, char **out, char *why, size_t whylen);
/* 1 when one of the newline-separated patterns matches str (LSan's rule; an empty or NULL str
 * matches nothing). */
int tp_suppress_match(const char *patterns, const char *str);

#endif
