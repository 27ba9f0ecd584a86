#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tp_parse_int(const char *s, long min, long max, long *out, const char **why)
{
    char *end;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s) {
        *why = "not an integer";
        return -1;
    }
    if (v < min || v > max) {
        *why = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}

/* strtoull skips blanks and then takes a minus sign, negating modulo 2^64: " -18446744073709551600"
 * would be read as 16. */
static int negative(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '-';
}

int tp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why)
{
    char *end;
    if (!s || !*s || negative(s)) {
        *why = s && *s ? "negative" : "empty value";
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || end == s) {
        *why = "not an integer";
        return -1;
    }
    if (v < min || v > max) {
        *why = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}

int tp_parse_double(const char *s, double min, double max, double *out, const char **why)
{
    char *end;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v)) {
        *why = "not a number";
        return -1;
    }
    if (v < min || v > max) {
        *why = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}

int tp_parse_size(const char *s, uint64_t *out, const char **why)
{
    char *end;
    if (!s || !*s || negative(s)) {
        *why = "not a size";
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) {
        *why = "not a size";
        return -1;
    }
    uint64_t mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 0: break;
    case 'K': mul = 1ull << 10; end++; break;
    case 'M': mul = 1ull << 20; end++; break;
    case 'G': mul = 1ull << 30; end++; break;
    default: *why = "unknown unit (use K, M or G)"; return -1;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end) {
        *why = "trailing characters";
        return -1;
    }
    if (v > UINT64_MAX / mul) {
        *why = "too large";
        return -1;
    }
    *out = v * mul;
    return 0;
}

static const struct {
    const char *name;
    int sig;
} signames[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},   {"QUIT", SIGQUIT},
    {"ALRM", SIGALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"URG", SIGURG},
};

int tp_parse_signal(const char *s, int *out, const char **why)
{
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    if (isdigit((unsigned char)*s)) {
        long v;
        if (tp_parse_int(s, 1, SIGRTMAX, &v, why) < 0)
            return -1;
        if (v == SIGKILL || v == SIGSTOP || v == SIGSEGV || v == SIGBUS || v == SIGFPE ||
            v == SIGILL) {
            *why = "that signal cannot be used for reports";
            return -1;
        }
        *out = (int)v;
        return 0;
    }
    const char *n = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
    for (size_t i = 0; i < sizeof signames / sizeof signames[0]; i++) {
        if (strcasecmp(n, signames[i].name) == 0) {
            *out = signames[i].sig;
            return 0;
        }
    }
    *why = "unknown signal (use USR1, USR2, HUP, QUIT, ALRM, PROF, WINCH, URG or a number)";
    return -1;
}

int tp_parse_schedule(const char *s, int *wait, int *warmup, int *active, const char **why)
{
    long v[3];
    char part[32];
    const char *p = s;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if ((i < 2 && !colon) || (i == 2 && colon) || n == 0 || n >= sizeof part) {
            *why = "expected wait:warmup:active, three whole numbers";
            return -1;
        }
        memcpy(part, p, n);
        part[n] = 0;
        if (tp_parse_int(part, 0, 1000000000L, &v[i], why) < 0) {
            *why = "expected wait:warmup:active, three whole numbers";
            return -1;
        }
        p = colon ? colon + 1 : p + n;
    }
    if (v[2] == 0) {
        *why = "active must be at least 1";
        return -1;
    }
    *wait = (int)v[0];
    *warmup = (int)v[1];
    *active = (int)v[2];
    return 0;
}

int tp_parse_bool(const char *s, int *out, const char **why)
{
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off")) {
        *out = 0;
        return 0;
    }
    *why = "expected 0 or 1";
    return -1;
}

void tp_config_defaults(struct tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->stack = 8;
    c->warmup = 1;
    c->top = 10;
    c->sched_wait = c->sched_warmup = c->sched_active = -1;
    c->max_sites = 131072;
    c->max_ops = 1024;
    c->trace_max = 64ull << 20;
    c->trace_cap = 1000000;
    c->json_sites = 1000;
}

void tp_config_free(struct tp_config *c)
{
    free(c->output);
    free(c->json);
    free(c->trace);
    free(c->folded);
    free(c->ops);
    free(c->step);
    memset(c, 0, sizeof *c);
}

static void warn_line(tp_warn_fn warn, const char *var, const char *val, const char *why,
                      const char *def)
{
    char line[512], shown[201];
    /* A value may hold a newline or any control character: the warning stays one line. */
    size_t n = 0;
    for (; val[n] && n < sizeof shown - 1; n++)
        shown[n] = (unsigned char)val[n] < 0x20 || val[n] == 0x7f ? '?' : val[n];
    shown[n] = 0;
    snprintf(line, sizeof line, "tprof: %s=%s: %s; using %s\n", var, shown, why, def);
    if (warn)
        warn(line);
}

/* A path-like value: any non-empty string without control characters; def is what the caller
 * uses instead, for the warning. */
static char *parse_path(const char *var, const char *v, const char *def, tp_warn_fn warn,
                        int *nwarn)
{
    for (const char *p = v; *p; p++) {
        if ((unsigned char)*p < 0x20) {
            warn_line(warn, var, v, "contains a control character", def);
            (*nwarn)++;
            return NULL;
        }
    }
    if (!*v) {
        warn_line(warn, var, v, "empty path", def);
        (*nwarn)++;
        return NULL;
    }
    return strdup(v);
}

static int valid_ops(const char *v)
{
    if (!*v)
        return 0;
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20)
            return 0;
    return 1;
}

int tp_config_load(struct tp_config *c, tp_getenv_fn get, tp_warn_fn warn)
{
    int nw = 0;
    const char *v, *why;
    long l;
    uint64_t u;
    double d;
    char def[64];

    tp_config_defaults(c);

    if ((v = get("TPROF_DISABLE"))) {
        int b;
        if (tp_parse_bool(v, &b, &why) < 0) {
            warn_line(warn, "TPROF_DISABLE", v, why, "0");
            nw++;
        } else {
            c->disable = b;
        }
    }
    if ((v = get("TPROF_DEBUGINFOD"))) {
        int b;
        if (tp_parse_bool(v, &b, &why) < 0) {
            warn_line(warn, "TPROF_DEBUGINFOD", v, why, "0");
            nw++;
        } else {
            c->debuginfod = b;
        }
    }
    v = get("TPROF_OUTPUT");
    if (v && (!strcmp(v, "stderr") || !strcmp(v, "none"))) {
        c->output = strdup(v);
    } else if (v) {
        c->output = parse_path("TPROF_OUTPUT", v, "stderr", warn, &nw);
        if (!c->output)
            c->output = strdup("stderr");
    } else {
        c->output = strdup("stderr");
    }
    if ((v = get("TPROF_JSON")))
        c->json = parse_path("TPROF_JSON", v, "none", warn, &nw);
    if ((v = get("TPROF_TRACE")))
        c->trace = parse_path("TPROF_TRACE", v, "none", warn, &nw);
    if ((v = get("TPROF_FOLDED")))
        c->folded = parse_path("TPROF_FOLDED", v, "none", warn, &nw);
    if ((v = get("TPROF_OPS"))) {
        if (valid_ops(v)) {
            c->ops = strdup(v);
        } else {
            warn_line(warn, "TPROF_OPS", v, "empty or contains a control character",
                      "the default op list");
            nw++;
        }
    }
    if (!c->ops)
        c->ops = strdup(TP_DEFAULT_OPS);

#define INT_VAR(name, field, lo, hi)                                                       \
    if ((v = get(name))) {                                                                 \
        if (tp_parse_int(v, lo, hi, &l, &why) < 0) {                                       \
            snprintf(def, sizeof def, "%d", c->field);                                     \
            warn_line(warn, name, v, why, def);                                            \
            nw++;                                                                          \
        } else {                                                                           \
            c->field = (int)l;                                                             \
        }                                                                                  \
    }
    INT_VAR("TPROF_STACK", stack, 1, TP_MAX_STACK)
    INT_VAR("TPROF_WARMUP", warmup, 0, 1000000)
    INT_VAR("TPROF_TOP", top, 1, 100000)
    INT_VAR("TPROF_JSON_SITES", json_sites, 0, 100000000)
#undef INT_VAR

#define DBL_VAR(name, field)                                                               \
    if ((v = get(name))) {                                                                 \
        if (tp_parse_double(v, 1e-6, 1e9, &d, &why) < 0) {                                 \
            warn_line(warn, name, v, why, "the calibrated value");                         \
            nw++;                                                                          \
        } else {                                                                           \
            c->field = d;                                                                  \
        }                                                                                  \
    }
    DBL_VAR("TPROF_PEAK_GFLOPS", peak_gflops)
    DBL_VAR("TPROF_PEAK_GBPS", peak_gbps)
#undef DBL_VAR

    if ((v = get("TPROF_STEP"))) {
        if (valid_ops(v) && !strchr(v, ',')) {
            c->step = strdup(v);
        } else {
            warn_line(warn, "TPROF_STEP", v, "expected one function name", "none");
            nw++;
        }
    }
    if ((v = get("TPROF_SCHEDULE"))) {
        if (tp_parse_schedule(v, &c->sched_wait, &c->sched_warmup, &c->sched_active, &why) < 0) {
            c->sched_wait = c->sched_warmup = c->sched_active = -1;
            warn_line(warn, "TPROF_SCHEDULE", v, why, "record all steps");
            nw++;
        }
    }
    if ((v = get("TPROF_SIGNAL"))) {
        if (tp_parse_signal(v, &c->signal, &why) < 0) {
            c->signal = 0;
            warn_line(warn, "TPROF_SIGNAL", v, why, "none");
            nw++;
        }
    }
    if ((v = get("TPROF_MAX_SITES"))) {
        if (tp_parse_u64(v, 16, 1ull << 26, &u, &why) < 0) {
            warn_line(warn, "TPROF_MAX_SITES", v, why, "131072");
            nw++;
        } else {
            c->max_sites = u;
        }
    }
    if ((v = get("TPROF_MAX_OPS"))) {
        if (tp_parse_u64(v, 4, 1ull << 20, &u, &why) < 0) {
            warn_line(warn, "TPROF_MAX_OPS", v, why, "1024");
            nw++;
        } else {
            c->max_ops = u;
        }
    }
    if ((v = get("TPROF_SNAPSHOT"))) {
        if (tp_parse_double(v, 0.01, 1e7, &d, &why) < 0) {
            warn_line(warn, "TPROF_SNAPSHOT", v, why, "off");
            nw++;
        } else {
            c->snapshot_s = d;
        }
    }
    if ((v = get("TPROF_TRACE_MAX"))) {
        /* u is only set when the parse succeeds */
        int bad = tp_parse_size(v, &u, &why) < 0;
        if (bad || u < 4096) {
            warn_line(warn, "TPROF_TRACE_MAX", v, bad ? why : "below 4K", "64M");
            nw++;
        } else {
            c->trace_max = u;
        }
    }
    if ((v = get("TPROF_TRACE_CAP"))) {
        if (tp_parse_u64(v, 0, 1ull << 40, &u, &why) < 0) {
            warn_line(warn, "TPROF_TRACE_CAP", v, why, "1000000");
            nw++;
        } else {
            c->trace_cap = u;
        }
    }
    return nw;
}

/* Match one comma-separated entry [s, e) against name. */
static int match_one(const char *s, size_t n, const char *name)
{
    char pat[256];
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n >= sizeof pat)
        return 0;
    memcpy(pat, s, n);
    pat[n] = 0;
    return fnmatch(pat, name, FNM_CASEFOLD) == 0;
}

int tp_ops_match(const char *patterns, const char *name)
{
    int included = 0;
    const char *p = patterns;
    if (!patterns || !name || !*name)
        return 0;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n > 0 && *p == '!') {
            if (match_one(p + 1, n - 1, name))
                return 0;
        } else if (!included && match_one(p, n, name)) {
            included = 1;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return included;
}
