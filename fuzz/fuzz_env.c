/* libFuzzer target: the TPROF_* environment parser, tp_config_load() in common/config.c, which
 * every preloaded process runs on whatever environment it inherited. How to build and run it:
 * fuzz/README.md.
 *
 * An input is an environment: NAME=VALUE entries separated by NUL bytes (a value can no more
 * hold a NUL than a real environment variable can). The first entry of a name wins, as with
 * getenv. Properties checked on every input, beyond "no crash, no leak, no undefined behaviour":
 * - every warning is one line, "tprof: NAME=...: <why>; using <default>\n", for a variable that
 *   is set, and no variable is warned about twice; the return value counts the warnings;
 * - every setting is within its documented range (README.md, Configuration);
 * - a variable that was warned about keeps its default, which the warning names ("using 8"),
 *   and one that was not has the value it was given;
 * - the op patterns that come out can be matched against any name (tp_ops_match);
 * - a setting tprof no longer has (TPROF_SAMPLE, TPROF_SAMPLE_SEED) gets one line saying so,
 *   naming exactly those set, and is not counted as a warning. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"

static void must(int ok, const char *what, const char *detail)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_env: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Every variable the parser reads. */
static const char *const names[] = {
    "TPROF_DISABLE",     "TPROF_OUTPUT",    "TPROF_JSON",       "TPROF_TRACE",
    "TPROF_FOLDED",      "TPROF_OPS",       "TPROF_STACK",      "TPROF_WARMUP",
    "TPROF_TOP",         "TPROF_JSON_SITES", "TPROF_PEAK_GFLOPS", "TPROF_PEAK_GBPS",
    "TPROF_STEP",        "TPROF_SCHEDULE",  "TPROF_SIGNAL",     "TPROF_MAX_SITES",
    "TPROF_MAX_OPS",     "TPROF_SNAPSHOT",  "TPROF_TRACE_MAX",  "TPROF_TRACE_CAP",
    "TPROF_PLT",         "TPROF_DEBUGINFOD", "TPROF_HOOK_NS",    "TPROF_HTML",
    "TPROF_DEMOTE",      "TPROF_SAMPLE_HZ", "TPROF_SUPPRESS",   "TPROF_MEMORY_BUDGET",
    "TPROF_SAMPLE",      "TPROF_SAMPLE_SEED", "TPROF_WORK",      "TPROF_WORK_FILE",
};
#define NVARS (sizeof names / sizeof names[0])

static char env_buf[1 << 16];
static const char *env_val[NVARS]; /* NULL: unset */
static int warned[NVARS];
static char used[NVARS][64]; /* what the warning says is used instead */
static int nwarn;
static int gone_said; /* lines saying a setting is no longer supported */

static int var_index(const char *name, size_t n)
{
    for (size_t i = 0; i < NVARS; i++)
        if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0)
            return (int)i;
    return -1;
}

static const char *get(const char *name)
{
    int i = var_index(name, strlen(name));
    must(i >= 0, "the parser read a variable this target does not know", name);
    return env_val[i];
}

/* The line for the settings that are gone, those set named in the table's order: the one line
 * with no "NAME=" (a warning's value, which may hold anything, comes after one). */
static int is_gone_line(const char *line)
{
    if (strchr(line, '='))
        return 0;
    int sample = env_val[var_index("TPROF_SAMPLE", 12)] != NULL;
    int seed = env_val[var_index("TPROF_SAMPLE_SEED", 17)] != NULL;
    char want[256];
    snprintf(want, sizeof want,
             "tprof: %s%s%s %s no longer supported: the heap is recorded exactly (every block)\n",
             sample ? "TPROF_SAMPLE" : "", sample && seed ? " and " : "",
             seed ? "TPROF_SAMPLE_SEED" : "", sample && seed ? "are" : "is");
    must((sample || seed) && !strcmp(line, want), "a line about gone settings not as expected",
         line);
    return 1;
}

static void warn(const char *line)
{
    size_t n = strlen(line);
    if (is_gone_line(line)) {
        must(!gone_said++, "gone settings said twice", line);
        return;
    }
    must(strncmp(line, "tprof: ", 7) == 0, "warning does not start with 'tprof: '", line);
    must(n > 0 && line[n - 1] == '\n', "warning does not end with a newline", line);
    must(memchr(line, '\n', n - 1) == NULL, "warning of more than one line", line);
    const char *u = NULL; /* the last "; using ": the value quoted before may hold one */
    for (const char *p = line; (p = strstr(p, "; using ")); p++)
        u = p;
    must(u != NULL, "warning does not say what is used instead", line);
    const char *eq = strchr(line + 7, '=');
    must(eq != NULL, "warning names no variable", line);
    int i = var_index(line + 7, (size_t)(eq - (line + 7)));
    must(i >= 0 && env_val[i] != NULL, "warning about a variable that is not set", line);
    must(!warned[i], "second warning about one variable", line);
    warned[i] = 1;
    snprintf(used[i], sizeof used[i], "%.*s", (int)(line + n - 1 - (u + 8)), u + 8);
    nwarn++;
}

static int no_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20)
            return 0;
    return 1;
}

static int set(const char *name) { return env_val[var_index(name, strlen(name))] != NULL; }
static int bad(const char *name) { return warned[var_index(name, strlen(name))]; }

/* The warning about name, if any, says that what is used is want (which the warning may follow
 * with what it means, in parentheses: "none (no JSON report)"). */
static void check_used(const char *name, const char *want)
{
    int i = var_index(name, strlen(name));
    size_t n = strlen(want);
    if (warned[i] && (strncmp(used[i], want, n) != 0 || (used[i][n] && used[i][n] != ' '))) {
        char detail[200];
        snprintf(detail, sizeof detail, "%s: says 'using %s', uses %s", name, used[i], want);
        must(0, "warning names another value than the one used", detail);
    }
}

/* An integer setting: in [lo, hi]; the default when warned about, else the value given. */
static void check_int(const char *name, long long v, long long lo, long long hi, long long def)
{
    char detail[128];
    snprintf(detail, sizeof detail, "%s = %lld", name, v);
    must(v >= lo && v <= hi, "setting out of its documented range", detail);
    if (!set(name) || bad(name)) {
        must(v == def, "setting without a valid value is not the default", detail);
        snprintf(detail, sizeof detail, "%lld", def);
        check_used(name, detail);
        return;
    }
    char *end;
    long long given = strtoll(get(name), &end, 10);
    must(given == v, "setting differs from the value given", detail);
}

static void check_real(const char *name, double v, double lo, double hi, const char *def)
{
    char detail[128];
    snprintf(detail, sizeof detail, "%s = %g", name, v);
    if (!set(name) || bad(name)) {
        must(v == 0, "setting without a valid value is not the default (0)", detail);
        check_used(name, def);
        return;
    }
    must(isfinite(v) && v >= lo && v <= hi, "setting out of its documented range", detail);
    must(v == strtod(get(name), NULL), "setting differs from the value given", detail);
}

/* A string setting: NULL (or def) when unset or warned about, else a copy of the value. */
static void check_str(const char *name, const char *v, const char *def)
{
    if (!set(name) || bad(name)) {
        must(def ? v && !strcmp(v, def) : v == NULL, "string setting is not its default", name);
        check_used(name, def ? def : "none");
        return;
    }
    must(v && !strcmp(v, get(name)), "string setting differs from the value given", name);
    must(*v && no_control(v), "string setting empty or with a control character", name);
}

static void check(const struct tp_config *c, int ret)
{
    must(ret == nwarn, "return value differs from the number of warnings", NULL);
    must(gone_said == (set("TPROF_SAMPLE") || set("TPROF_SAMPLE_SEED")),
         "gone settings set and not said, or said unset", NULL);
    must(c->disable == 0 || c->disable == 1, "TPROF_DISABLE is neither 0 nor 1", NULL);
    if (!set("TPROF_DISABLE") || bad("TPROF_DISABLE"))
        must(c->disable == 0, "TPROF_DISABLE without a valid value is not 0", NULL);
    check_used("TPROF_DISABLE", "0");
    check_used("TPROF_SCHEDULE", "record all steps");
    check_used("TPROF_SIGNAL", "none");

    /* TPROF_OUTPUT falls back to stderr, the other paths to none. */
    must(c->output && *c->output && no_control(c->output), "TPROF_OUTPUT unusable", c->output);
    check_str("TPROF_OUTPUT", c->output, "stderr");
    check_str("TPROF_JSON", c->json, NULL);
    check_str("TPROF_TRACE", c->trace, NULL);
    check_str("TPROF_FOLDED", c->folded, NULL);
    check_str("TPROF_HTML", c->html, NULL);
    if (bad("TPROF_OPS")) {
        must(!strcmp(c->ops, TP_DEFAULT_OPS), "TPROF_OPS without a valid value is not the default", NULL);
        check_used("TPROF_OPS", "the default op list");
    } else {
        check_str("TPROF_OPS", c->ops, TP_DEFAULT_OPS);
    }
    check_str("TPROF_STEP", c->step, NULL);
    must(!c->step || !strchr(c->step, ','), "TPROF_STEP is a list", c->step);

    check_int("TPROF_STACK", c->stack, 1, TP_MAX_STACK, 8);
    check_int("TPROF_WARMUP", c->warmup, 0, 1000000, 1);
    check_int("TPROF_TOP", c->top, 1, 100000, 10);
    check_int("TPROF_JSON_SITES", c->json_sites, 0, 100000000, 1000);
    /* 0: no fixed cap (the memory budget limits the table); a value given is 16 to 2^26 */
    check_int("TPROF_MAX_SITES", (long long)c->max_sites, 0, 1ll << 26, 0);
    check_int("TPROF_MAX_OPS", (long long)c->max_ops, 0, 1ll << 20, 0);
    check_int("TPROF_TRACE_CAP", (long long)c->trace_cap, 0, 1ll << 40, 1000000);
    check_real("TPROF_PEAK_GFLOPS", c->peak_gflops, 1e-6, 1e9, "the calibrated value");
    check_real("TPROF_PEAK_GBPS", c->peak_gbps, 1e-6, 1e9, "the calibrated value");
    check_real("TPROF_SNAPSHOT", c->snapshot_s, 0.01, 1e7, "off");

    /* A size: at least 4K, 64M by default. */
    must(c->trace_max >= 4096, "TPROF_TRACE_MAX below 4K", NULL);
    if (!set("TPROF_TRACE_MAX") || bad("TPROF_TRACE_MAX"))
        must(c->trace_max == 64ull << 20, "TPROF_TRACE_MAX without a valid value is not 64M", NULL);
    check_used("TPROF_TRACE_MAX", "64M");

    /* The schedule: all three unset (-1), or wait, warmup >= 0 and active >= 1. */
    if (!set("TPROF_SCHEDULE") || bad("TPROF_SCHEDULE"))
        must(c->sched_wait == -1 && c->sched_warmup == -1 && c->sched_active == -1,
             "TPROF_SCHEDULE without a valid value is not unset", NULL);
    else
        must(c->sched_wait >= 0 && c->sched_warmup >= 0 && c->sched_active >= 1,
             "TPROF_SCHEDULE out of range", get("TPROF_SCHEDULE"));

    /* The report signal: none, or one a report can be taken on. */
    if (!set("TPROF_SIGNAL") || bad("TPROF_SIGNAL"))
        must(c->signal == 0, "TPROF_SIGNAL without a valid value is not none", NULL);
    else
        must(c->signal >= 1 && c->signal <= SIGRTMAX && c->signal != SIGKILL &&
                 c->signal != SIGSTOP && c->signal != SIGSEGV && c->signal != SIGBUS &&
                 c->signal != SIGFPE && c->signal != SIGILL,
             "TPROF_SIGNAL is a signal reports cannot use", get("TPROF_SIGNAL"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= sizeof env_buf)
        return 0;
    memcpy(env_buf, data, size);
    env_buf[size] = 0;
    memset(env_val, 0, sizeof env_val);
    memset(warned, 0, sizeof warned);
    nwarn = 0;
    gone_said = 0;
    for (char *p = env_buf; p < env_buf + size; p += strlen(p) + 1) {
        char *eq = strchr(p, '=');
        if (!eq)
            continue;
        int i = var_index(p, (size_t)(eq - p));
        if (i >= 0 && !env_val[i])
            env_val[i] = eq + 1;
    }

    struct tp_config c;
    int ret = tp_config_load(&c, get, warn);
    check(&c, ret);

    /* Whatever patterns came out, matching names against them is safe; the step name and the
     * values given are names as odd as any program's. */
    tp_ops_match(c.ops, "cblas_sgemm");
    tp_ops_match(c.ops, c.step ? c.step : "conv2d_forward");
    for (size_t i = 0; i < NVARS; i++)
        if (env_val[i])
            tp_ops_match(c.ops, env_val[i]);
    tp_config_free(&c);
    return 0;
}
