/* Read a JSON report (docs/json-shape.md) into the model. CLI only (json-c). */
#ifndef TPROF_JSON_READ_H
#define TPROF_JSON_READ_H

#include <stddef.h>

#include "report.h"

/* 0, or -1 with one line in err: "<file>: <key>: <what is wrong>". path "-" is stdin. */
int tp_report_read_json(const char *path, struct tp_report *r, char *err, size_t errlen);

#endif
