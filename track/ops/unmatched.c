/* Settings that matched nothing by the end of the run (see track/ops/ops.h). */
#include "track/ops/ops.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/config.h"
#include "report/report.h"
#include "track/runtime.h"

#define CLOSEST 3

/* name of an op equals entry, or is entry with a C++ parameter list. */
static int op_named(const struct tp_report *r, const char *entry, size_t n)
{
    for (size_t i = 0; i < r->nops; i++) {
        const char *o = r->ops[i].name;
        if (o && !strncasecmp(o, entry, n) && (o[n] == 0 || o[n] == '('))
            return 1;
    }
    return 0;
}

/* "<var>=<value>: [<entry>: ]no function of that name was called; closest: a, b" into line. */
static void say(char *line, size_t size, const char *var, const char *value, const char *entry)
{
    const char *c[CLOSEST];
    size_t n = tp_seen_closest(entry, c, CLOSEST);
    int k = snprintf(line, size, "%s=%s: ", var, value);
    if (k < 0 || (size_t)k >= size)
        return;
    if (strcmp(entry, value) != 0)
        k += snprintf(line + k, size - (size_t)k, "%s: ", entry);
    if ((size_t)k >= size)
        return;
    if (tp_seen_instrumented())
        k += snprintf(line + k, size - (size_t)k, "no function of that name was called");
    else /* it may have run where no hook sees it */
        k += snprintf(line + k, size - (size_t)k,
                      "no call of it was seen (tprof sees the calls of functions built with "
                      "-finstrument-functions and those into shared libraries)");
    for (size_t i = 0; i < n && (size_t)k < size; i++)
        k += snprintf(line + k, size - (size_t)k, "%s%s", i ? ", " : "; closest: ", c[i]);
}

static void tell(struct tp_report *r, const char *line, int warn)
{
    tp_report_note(r, "%s", line);
    if (warn)
        tp_warn("%s", line);
}

/* The next exact entry of TPROF_OPS from p (no glob character, not an exclusion), trimmed, into
 * entry; returns where the search goes on, NULL when there is none. */
static const char *next_exact(const char *p, char *entry, size_t cap)
{
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *s = p;
        while (len && (*s == ' ' || *s == '\t'))
            s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        p = e ? e + 1 : "";
        if (!len || len >= cap || *s == '!' || memchr(s, '*', len) || memchr(s, '?', len) ||
            memchr(s, '[', len) || memchr(s, '\\', len))
            continue;
        memcpy(entry, s, len);
        entry[len] = 0;
        return p;
    }
    return NULL;
}

static void ops_entries(struct tp_report *r, int warn)
{
    char line[512], entry[256];
    for (const char *p = tp_cfg.ops; (p = next_exact(p, entry, sizeof entry)) != NULL;) {
        if (op_named(r, entry, strlen(entry)))
            continue;
        say(line, sizeof line, "TPROF_OPS", tp_cfg.ops, entry);
        tell(r, line, warn);
    }
}

int tp_unmatched_possible(void)
{
    char entry[256];
    return (tp_cfg.step && *tp_cfg.step) || next_exact(tp_cfg.ops, entry, sizeof entry) != NULL;
}

void tp_unmatched_notes(struct tp_report *r, int final)
{
    static _Atomic int told; /* a failed exec and the exit after it are two final reports */
    char line[512];
    if (!final)
        return;
    int warn = !atomic_exchange(&told, 1) && !(tp_cfg.output && !strcmp(tp_cfg.output, "stderr"));
    if (tp_cfg.step && *tp_cfg.step && r->steps.seen == 0) {
        say(line, sizeof line, "TPROF_STEP", tp_cfg.step, tp_cfg.step);
        tell(r, line, warn);
    }
    ops_entries(r, warn);
}
