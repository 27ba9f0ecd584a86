/* Parsers of /proc scheduler figures (common/machine/machine.h). */
#include "common/machine/machine.h"

#include <string.h>

/* An unsigned decimal at *p, past leading blanks; -1 when there is no digit. */
static int read_u64(const char **p, uint64_t *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s++ - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d; /* saturate, never wrap */
    }
    *out = v;
    *p = s;
    return 0;
}

int tp_parse_schedstat(const char *s, uint64_t *run_ns, uint64_t *wait_ns)
{
    uint64_t a, b;
    if (!s || read_u64(&s, &a) < 0 || read_u64(&s, &b) < 0)
        return -1;
    *run_ns = a;
    *wait_ns = b;
    return 0;
}

/* The value of "key:" at the start of a line of a status file; -1 when absent. */
static int status_value(const char *s, const char *key, uint64_t *out)
{
    size_t k = strlen(key);
    for (const char *line = s; line && *line;) {
        if (!strncmp(line, key, k) && line[k] == ':') {
            const char *p = line + k + 1;
            return read_u64(&p, out);
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return -1;
}

int tp_parse_ctxt(const char *s, uint64_t *nvcsw, uint64_t *nivcsw)
{
    if (!s)
        return -1;
    int a = status_value(s, "voluntary_ctxt_switches", nvcsw);
    int b = status_value(s, "nonvoluntary_ctxt_switches", nivcsw);
    return a == 0 && b == 0 ? 0 : -1;
}

int tp_parse_stat_times(const char *s, uint64_t *cpu_ticks, uint64_t *start_ticks)
{
    const char *p = s ? strrchr(s, ')') : NULL;
    if (!p)
        return -1;
    p++;
    /* p is now before field 3 (the state, one letter); fields 4 on are numbers, some signed */
    uint64_t f[23] = {0};
    int field = 3;
    while (*p && field <= 22) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (field >= 4 && field <= 22) {
            const char *q = *p == '-' ? p + 1 : p;
            if (read_u64(&q, &f[field]) < 0)
                return -1;
            p = q;
        } else {
            while (*p && *p != ' ')
                p++;
        }
        field++;
    }
    if (field <= 22)
        return -1;
    *cpu_ticks = f[14] + f[15];
    *start_ticks = f[22];
    return 0;
}

double tp_parse_cpu_max(const char *s)
{
    uint64_t quota, period;
    if (!s || !strncmp(s, "max", 3) || read_u64(&s, &quota) < 0 || read_u64(&s, &period) < 0 ||
        period == 0)
        return 0;
    return (double)quota / (double)period;
}
