/* A call site's identity across runs: its frames by function, file:line (else module+offset).
 * Used to match sites in `tprof diff` and `tprof merge`. */
#ifndef TPROF_SITEKEY_H
#define TPROF_SITEKEY_H

#include <stddef.h>

#include "report.h"

/* Write the key of s into out (truncated to n). */
void tp_site_key(const struct tp_site *s, char *out, size_t n);

#endif
