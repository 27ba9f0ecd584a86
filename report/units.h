/* Human units for reports: every formatter writes into a caller's buffer (always NUL-terminated,
 * cut when too small) and returns it. None ever prints "nan" or "inf". */
#ifndef TPROF_UNITS_H
#define TPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* At most 3 significant digits after scaling, rounded so that the unit never shows 1000 or more
 * of itself ("999 KiB", then "0.98 MiB"; "999 us", then "1.00 ms"). */
char *tp_fmt_bytes(uint64_t v, char *out, size_t n); /* 512 B, 1.50 KiB, 412 MiB, 16.0 EiB */
char *tp_fmt_ns(uint64_t v, char *out, size_t n);    /* 850 ns, 12.3 us, 4.56 ms, 1.23 s, 4567 s */
char *tp_fmt_count(uint64_t v, char *out, size_t n); /* 999, 1.20k, 3.40M, 18.4E */
/* A rate in units per second with an SI prefix: tp_fmt_rate(5e10, "FLOP/s") is "50.0 GFLOP/s",
 * tp_fmt_rate(2e10, "B/s") "20.0 GB/s". "-" when negative or not finite. */
char *tp_fmt_rate(double per_s, const char *unit, char *out, size_t n);
/* A number for a table cell at most width columns wide: "%.<decimals>f" if it fits, else fewer
 * decimals, else an SI suffix (12.3k, 4.5M, ... 1.2E), else exponent form. "-" when not
 * finite. */
char *tp_fmt_num(double v, int decimals, int width, char *out, size_t n);
/* A fraction as a percentage in at most width columns, "%" included: "40.0%", "1234%". */
char *tp_fmt_pct(double frac, int width, char *out, size_t n);
/* function (file:line), function (module), or module+0xoffset; file and module without their
 * directory; " [inlined]" after the name of a function inlined into the next frame. */
char *tp_fmt_frame(const struct tp_frame *f, char *out, size_t n);

/* Text that goes into a terminal: columns are counted in characters (UTF-8 code points), never
 * bytes, control characters and invalid UTF-8 bytes become '?'. */
size_t tp_text_width(const char *s);
/* s cut to at most w columns, with "..." at the end when it was cut. */
char *tp_fmt_fit(const char *s, size_t w, char *out, size_t n);
/* s fitted to w columns and padded with spaces to exactly w: left-aligned, or right-aligned
 * when right is 1. A NULL s is empty. */
char *tp_fmt_cell(const char *s, size_t w, int right, char *out, size_t n);

#endif
