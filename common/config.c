#include "common/config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "common/suppress.h"
#include "common/workspec.h"

void tp_config_defaults(struct tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->stack = 8;
    c->warmup = 1;
    c->top = 10;
    c->sched_wait = c->sched_warmup = c->sched_active = -1;
    c->max_ops = 0;
    c->trace_max = 64ull << 20;
    c->trace_cap = 1000000;
    c->json_sites = 1000;
    c->plt = 1;
    c->hook_ns = -1;
    c->sample_hz = 100;
    c->demote = 500;
}

void tp_config_free(struct tp_config *c)
{
    free(c->output);
    free(c->json);
    free(c->trace);
    free(c->folded);
    free(c->html);
    free(c->pprof);
    free(c->pprof_time);
    free(c->ops);
    free(c->step);
    free(c->suppress);
    free(c->work);
    memset(c, 0, sizeof *c);
}

/* A value may hold a newline, an escape sequence or bytes of no character, and the reason may
 * quote it (a work formula's parse error, a path): both are shown escaped (common/out/escape.c),
 * here and nowhere before, and the warning stays one line. The value is cut at 200 bytes. */
static void warn_line(tp_warn_fn warn, const char *var, const char *val, const char *why,
                      const char *def)
{
    char line[2048], shown[801], reason[1025];
    size_t n = strlen(val);
    tp_escape(shown, sizeof shown, val, n > 200 ? 200 : n);
    tp_escape_str(reason, sizeof reason, why);
    snprintf(line, sizeof line, "tprof: %s=%s: %s; using %s\n", var, shown, reason, def);
    if (warn)
        warn(line);
}

/* A path-like value: any non-empty string without control characters. */
static int valid_path(const char *v, const char **why)
{
    for (const char *p = v; *p; p++) {
        if ((unsigned char)*p < 0x20) {
            *why = "contains a control character";
            return 0;
        }
    }
    if (!*v) {
        *why = "empty path";
        return 0;
    }
    return 1;
}

/* How each variable is read. */
enum kind {
    K_BOOL,     /* int field */
    K_INT,      /* int field, lo..hi */
    K_U64,      /* uint64_t field, lo..hi */
    K_DOUBLE,   /* double field, lo..hi */
    K_SIZE,     /* uint64_t field, a size with K/M/G, at least lo */
    K_PATH,     /* char * field: a path template */
    K_OUTPUT,   /* char * field: "stderr", "none" or a path template */
    K_OPS,      /* char * field: a glob list (tp_parse_ops) */
    K_STEP,     /* char * field: one function name */
    K_SCHEDULE, /* sched_wait, sched_warmup, sched_active */
    K_SIGNAL,   /* int field: a signal number */
    K_SUPPRESS, /* char * field: the patterns of a leak suppression file (common/suppress.h) */
    K_WORK,     /* the work set: formulas (common/workspec.h) */
    K_WORKFILE, /* the work set: a file of formulas */
    K_DETAIL,   /* int field: "short" 0, "full" 1 */
};

#define OFF(f) offsetof(struct tp_config, f)

/* Every TPROF_* variable, in the order they are read (and warned about). def is what a warning
 * says is used instead; it must agree with tp_config_defaults. */
static const struct var {
    const char *name;
    enum kind kind;
    size_t off;
    double lo, hi;
    const char *def;
} vars[] = {
    {"TPROF_DISABLE", K_BOOL, OFF(disable), 0, 0, "0"},
    {"TPROF_OUTPUT", K_OUTPUT, OFF(output), 0, 0, "stderr"},
    {"TPROF_JSON", K_PATH, OFF(json), 0, 0, "none (no JSON report)"},
    {"TPROF_TRACE", K_PATH, OFF(trace), 0, 0, "none (no trace)"},
    {"TPROF_FOLDED", K_PATH, OFF(folded), 0, 0, "none (no folded stacks)"},
    {"TPROF_OPS", K_OPS, OFF(ops), 0, 0, "the default op list"},
    {"TPROF_STACK", K_INT, OFF(stack), 1, TP_MAX_STACK, "8"},
    {"TPROF_WARMUP", K_INT, OFF(warmup), 0, 1000000, "1"},
    {"TPROF_TOP", K_INT, OFF(top), 1, 100000, "10"},
    {"TPROF_JSON_SITES", K_INT, OFF(json_sites), 0, 100000000, "1000"},
    {"TPROF_PEAK_GFLOPS", K_DOUBLE, OFF(peak_gflops), 1e-6, 1e9, "the calibrated value"},
    {"TPROF_PEAK_GBPS", K_DOUBLE, OFF(peak_gbps), 1e-6, 1e9, "the calibrated value"},
    {"TPROF_STEP", K_STEP, OFF(step), 0, 0, "none"},
    {"TPROF_SCHEDULE", K_SCHEDULE, 0, 0, 0, "record all steps"},
    {"TPROF_SIGNAL", K_SIGNAL, OFF(signal), 0, 0, "none"},
    {"TPROF_MAX_SITES", K_U64, OFF(max_sites), 16, 1ull << 26, "0 (no fixed cap)"},
    {"TPROF_MAX_OPS", K_U64, OFF(max_ops), 4, 1ull << 20, "0 (no fixed cap)"},
    {"TPROF_SNAPSHOT", K_DOUBLE, OFF(snapshot_s), 0.01, 1e7, "off"},
    {"TPROF_TRACE_MAX", K_SIZE, OFF(trace_max), 4096, 0, "64M"},
    {"TPROF_TRACE_CAP", K_U64, OFF(trace_cap), 0, 1ull << 40, "1000000"},
    {"TPROF_PLT", K_BOOL, OFF(plt), 0, 0, "1"},
    {"TPROF_DEBUGINFOD", K_BOOL, OFF(debuginfod), 0, 0, "0"},
    {"TPROF_HOOK_NS", K_DOUBLE, OFF(hook_ns), 0, 1e6, "the measured cost"},
    {"TPROF_SAMPLE_HZ", K_INT, OFF(sample_hz), 0, 1000, "100"},
    {"TPROF_DETAIL", K_DETAIL, OFF(detail), 0, 0, "short"},
    {"TPROF_SUPPRESS", K_SUPPRESS, OFF(suppress), 0, 0, "none"},
    {"TPROF_DEMOTE", K_DOUBLE, OFF(demote), 0, 1e9, "500"},
    {"TPROF_HTML", K_PATH, OFF(html), 0, 0, "none (no HTML report)"},
    {"TPROF_PPROF", K_PATH, OFF(pprof), 0, 0, "none (no heap profile)"},
    {"TPROF_PPROF_TIME", K_PATH, OFF(pprof_time), 0, 0, "none (no op-time profile)"},
    {"TPROF_WORK", K_WORK, OFF(work), 0, 0, "no work from arguments"},
    {"TPROF_WORK_FILE", K_WORKFILE, OFF(work), 0, 0, "no work from arguments"},
    {"TPROF_MEMORY_BUDGET", K_SIZE, OFF(memory_budget), 4096, 0, "max(5% of peak RSS, 64M)"},
};
#define NVARS (sizeof vars / sizeof vars[0])

/* Settings tprof no longer has: the sampled heap's. Scripts written for them still run: one line
 * says they are ignored, before the program runs, and the run goes on. */
static const struct gone {
    const char *name;
} gone[] = {
    {"TPROF_SAMPLE"},
    {"TPROF_SAMPLE_SEED"},
};
#define NGONE        (sizeof gone / sizeof gone[0])
#define GONE_INSTEAD "the heap is recorded exactly (every block)"

int tp_config_gone(const char *name)
{
    for (size_t i = 0; i < NGONE; i++)
        if (!strcmp(gone[i].name, name))
            return 1;
    return 0;
}

/* One line however many of them are set: they name one feature that went. */
static void say_gone(tp_getenv_fn get, tp_warn_fn warn)
{
    char names[256] = "";
    size_t n = 0, len = 0;
    for (size_t i = 0; i < NGONE; i++) {
        if (!get(gone[i].name))
            continue;
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", n ? " and " : "",
                                gone[i].name);
        n++;
    }
    if (!n || !warn)
        return;
    char line[512];
    snprintf(line, sizeof line, "tprof: %s %s no longer supported: " GONE_INSTEAD "\n", names,
             n > 1 ? "are" : "is");
    warn(line);
}

/* TPROF_SUPPRESS: the file is read now, at start-up, so that a bad one is said before the
 * program runs; the configuration is loaded once, so one buffer for the reason is enough. */
static int apply_suppress(char **f, const char *v, const char **why)
{
    static char reason[160];
    char *s;
    if (!valid_path(v, why))
        return -1;
    if (tp_suppress_load(v, &s, reason, sizeof reason) < 0) {
        *why = reason;
        return -1;
    }
    free(*f);
    *f = s;
    return 0;
}

/* TPROF_WORK, TPROF_WORK_FILE: compiled now, so that a bad formula is said before the program
 * runs; the file's entries add to (or replace) those of TPROF_WORK. */
static int apply_work(struct tp_work_set **set, const char *v, int file, const char **why)
{
    static char reason[200];
    if (file && !valid_path(v, why))
        return -1;
    int rc = file ? tp_work_load(set, v, reason, sizeof reason)
                  : tp_work_parse(set, v, reason, sizeof reason);
    if (rc < 0)
        *why = reason;
    return rc;
}

/* Apply one variable's value to c. 0, or -1 with *why (c untouched).
 * Long because it is one switch with a case per kind of variable, each a few lines. */
static int apply(struct tp_config *c, const struct var *d, const char *v, const char **why)
{
    void *f = (char *)c + d->off;
    long l;
    uint64_t u;
    double x;
    int b;
    char *s;
    switch (d->kind) {
    case K_BOOL:
        if (tp_parse_bool(v, &b, why) < 0)
            return -1;
        *(int *)f = b;
        return 0;
    case K_INT:
        if (tp_parse_int(v, (long)d->lo, (long)d->hi, &l, why) < 0)
            return -1;
        *(int *)f = (int)l;
        return 0;
    case K_U64:
        if (tp_parse_u64(v, (uint64_t)d->lo, (uint64_t)d->hi, &u, why) < 0)
            return -1;
        *(uint64_t *)f = u;
        return 0;
    case K_DOUBLE:
        if (tp_parse_double(v, d->lo, d->hi, &x, why) < 0)
            return -1;
        *(double *)f = x;
        return 0;
    case K_SIZE:
        if (tp_parse_size(v, &u, why) < 0)
            return -1;
        if (u < (uint64_t)d->lo) {
            *why = "below 4K";
            return -1;
        }
        *(uint64_t *)f = u;
        return 0;
    case K_OUTPUT:
        if (!strcmp(v, "stderr") || !strcmp(v, "none"))
            goto copy;
        /* fall through */
    case K_PATH:
        if (!valid_path(v, why))
            return -1;
        goto copy;
    case K_OPS:
        if (tp_parse_ops(v, why) < 0)
            return -1;
        goto copy;
    case K_STEP:
        if (!valid_path(v, why) || strchr(v, ',')) {
            *why = "expected one function name";
            return -1;
        }
        goto copy;
    case K_SCHEDULE:
        if (tp_parse_schedule(v, &c->sched_wait, &c->sched_warmup, &c->sched_active, why) < 0) {
            c->sched_wait = c->sched_warmup = c->sched_active = -1;
            return -1;
        }
        return 0;
    case K_SIGNAL:
        if (tp_parse_signal(v, &b, why) < 0)
            return -1;
        *(int *)f = b;
        return 0;
    case K_DETAIL:
        if (strcmp(v, "short") && strcmp(v, "full")) {
            *why = "expected short or full";
            return -1;
        }
        *(int *)f = !strcmp(v, "full");
        return 0;
    case K_SUPPRESS: return apply_suppress((char **)f, v, why);
    case K_WORK:
    case K_WORKFILE: return apply_work((struct tp_work_set **)f, v, d->kind == K_WORKFILE, why);
    }
    *why = "unknown kind";
    return -1;
copy:
    s = strdup(v);
    if (!s) {
        *why = "out of memory";
        return -1;
    }
    free(*(char **)f);
    *(char **)f = s;
    return 0;
}

int tp_config_load(struct tp_config *c, tp_getenv_fn get, tp_warn_fn warn)
{
    int nw = 0;
    const char *v, *why;

    tp_config_defaults(c);
    for (size_t i = 0; i < NVARS; i++) {
        if (!(v = get(vars[i].name)))
            continue;
        if (apply(c, &vars[i], v, &why) < 0) {
            warn_line(warn, vars[i].name, v, why, vars[i].def);
            nw++;
        }
    }
    say_gone(get, warn);
    if (!c->output)
        c->output = strdup("stderr");
    if (!c->ops)
        c->ops = strdup(TP_DEFAULT_OPS);
    return nw;
}

static const char *default_text(const char *name)
{
    for (size_t i = 0; i < NVARS; i++)
        if (!strcmp(vars[i].name, name))
            return vars[i].def;
    return "none";
}

int tp_config_check_outputs(struct tp_config *c, const struct tp_path_ctx *ctx, tp_warn_fn warn)
{
    const struct {
        const char *var;
        char **field;
    } outs[] = {
        {"TPROF_OUTPUT", &c->output},         {"TPROF_JSON", &c->json}, {"TPROF_TRACE", &c->trace},
        {"TPROF_FOLDED", &c->folded},         {"TPROF_HTML", &c->html}, {"TPROF_PPROF", &c->pprof},
        {"TPROF_PPROF_TIME", &c->pprof_time},
    };
    int nw = 0;
    if (c->disable)
        return 0;
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        const char *v = *outs[i].field;
        char path[4096], why[600];
        if (!v || (i == 0 && (!strcmp(v, "stderr") || !strcmp(v, "none"))))
            continue;
        if (tp_output_path(v, ctx, path, sizeof path) < 0)
            snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, path);
        else if (tp_check_output(path, why, sizeof why) < 0)
            ;
        else
            continue;
        warn_line(warn, outs[i].var, v, why, default_text(outs[i].var));
        nw++;
        free(*outs[i].field);
        *outs[i].field = i == 0 ? strdup("stderr") : NULL;
    }
    return nw;
}

const char *tp_env_get(const char *name)
{
    return getenv(name);
}
