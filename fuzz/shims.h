/* Entry points into the CLI's diff and merge for the fuzz target (fuzz/shim_*.c). */
#ifndef TPROF_FUZZ_SHIMS_H
#define TPROF_FUZZ_SHIMS_H

#include "common/buf.h"
#include "report/report.h"

/* 0, the text diff appended to text_out and the JSON diff in *json_out (malloc'd). */
int tp_fuzz_diff(const struct tp_report *a, const struct tp_report *b, struct tp_buf *text_out,
                 char **json_out);
/* 0 and the merge of in[0..n) (n <= 4) in out, analysed. */
int tp_fuzz_merge(const struct tp_report *in, size_t n, struct tp_report *out);

#endif
