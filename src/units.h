/* Human units for reports: every formatter writes into a caller's buffer and returns it. */
#ifndef TPROF_UNITS_H
#define TPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

char *tp_fmt_bytes(uint64_t v, char *out, size_t n); /* 512 B, 1.5 KiB, 412 MiB */
char *tp_fmt_ns(uint64_t v, char *out, size_t n);    /* 850 ns, 12.3 us, 4.56 ms, 1.23 s */
char *tp_fmt_count(uint64_t v, char *out, size_t n); /* 999, 1.2k, 3.4M, 5.6G */
char *tp_fmt_flops(uint64_t v, char *out, size_t n); /* 12.3 MFLOP, 4.5 GFLOP */
/* function (file:line), function, or module+0xoffset; file without its directory. */
char *tp_fmt_frame(const struct tp_frame *f, char *out, size_t n);
/* s cut to at most w columns with "..." at the end. */
char *tp_fmt_fit(const char *s, size_t w, char *out, size_t n);

#endif
