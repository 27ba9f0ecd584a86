/* Read a JSON report (docs/json-shape.md) into the model. CLI only (json-c).
 *
 * Every key of schema 1 is read; a missing key takes the model's default (0, NULL, -1 for pid,
 * ppid and the step window). Unknown keys are ignored, so newer writers may add keys within a
 * schema. The first problem found is reported as one line, "<file>: <what is wrong>" or
 * "<file>: <key path>: <what is wrong>" (e.g. "run.json: ops[3].calls: expected an unsigned
 * integer, found a string"), and the model is left empty: nothing is ever half-read. */
#ifndef TPROF_JSON_READ_H
#define TPROF_JSON_READ_H

#include <stddef.h>

#include "report/report.h"

/* Reports larger than this are refused (no tprof report comes near it). */
#define TP_JSON_MAX_BYTES (1ull << 30)

/* 0, or -1 with one line in err. path "-" is stdin (shown as "<stdin>"). */
int tp_report_read_json(const char *path, struct tp_report *r, char *err, size_t errlen);
/* The same from memory: buf holds len bytes (need not be NUL-terminated); name is the file name
 * used in messages. */
int tp_report_parse_json(const char *name, const char *buf, size_t len, struct tp_report *r,
                         char *err, size_t errlen);

#endif
