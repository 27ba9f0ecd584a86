/* tprof run: set the TPROF_* variables from flags, preload libtprof.so, exec the program.
 * tprof itself is replaced by the program (same pid), so exit status and signals are the
 * program's own. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"

/* Every flag is one TPROF_* variable; the value is validated by the library's own parser. */
static const struct {
    const char *flag, *var, *arg, *help;
} flags[] = {
    {"--output", "TPROF_OUTPUT", "F", "text report: stderr, none, or a path (%p %r %h expand)"},
    {"--json", "TPROF_JSON", "F", "JSON report path"},
    {"--trace", "TPROF_TRACE", "F", "Chrome trace (Perfetto) path"},
    {"--folded", "TPROF_FOLDED", "F", "folded stacks path (flame graphs)"},
    {"--ops", "TPROF_OPS", "GLOBS", "functions timed as ops (comma-separated globs, !glob excludes)"},
    {"--stack", "TPROF_STACK", "N", "frames per allocation call site (1-64, default 8)"},
    {"--warmup", "TPROF_WARMUP", "N", "first calls of each op left out of percentiles (default 1)"},
    {"--top", "TPROF_TOP", "N", "rows per report section (default 10)"},
    {"--peak-gflops", "TPROF_PEAK_GFLOPS", "X", "machine peak GFLOP/s (overrides calibration)"},
    {"--peak-gbps", "TPROF_PEAK_GBPS", "X", "machine peak GB/s (overrides calibration)"},
    {"--step", "TPROF_STEP", "FN", "function whose calls are the program's iterations"},
    {"--schedule", "TPROF_SCHEDULE", "W:U:A", "skip W steps, run U unrecorded, record A"},
    {"--signal", "TPROF_SIGNAL", "SIG", "signal that writes a report without stopping (USR1...)"},
    {"--snapshot", "TPROF_SNAPSHOT", "SEC", "write the report every SEC seconds"},
    {"--trace-max", "TPROF_TRACE_MAX", "SIZE", "trace size budget (default 64M)"},
    {"--max-sites", "TPROF_MAX_SITES", "N", "call-site table capacity (default 131072)"},
    {"--json-sites", "TPROF_JSON_SITES", "N", "sites written to JSON (default 1000, 0 = all)"},
    {"--trace-cap", "TPROF_TRACE_CAP", "N", "op calls drawn one by one in the trace (default 1000000)"},
    {"--max-ops", "TPROF_MAX_OPS", "N", "op table capacity (default 1024)"},
    {"--plt", "TPROF_PLT", "0|1", "0: do not hook shared-library exports through the PLT"},
    {"--hook-ns", "TPROF_HOOK_NS", "NS", "cost of one non-op instrumentation hook (default measured)"},
    {"--debuginfod", "TPROF_DEBUGINFOD", "0|1", "1: symbolisation may ask the DEBUGINFOD_URLS servers (default 0)"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof run [options] -- cmd [args...]\n\n"
               "Runs cmd with libtprof.so preloaded; the report is written when it exits.\n\n");
    for (size_t i = 0; i < NFLAGS; i++) {
        char left[40];
        snprintf(left, sizeof left, "%s %s", flags[i].flag, flags[i].arg);
        fprintf(f, "  %-24s %s [%s]\n", left, flags[i].help, flags[i].var);
    }
    fprintf(f, "  %-24s %s\n", "--disable", "preload but pass everything through [TPROF_DISABLE=1]");
    fprintf(f, "  %-24s %s\n", "--lib PATH", "use this libtprof.so [TPROF_LIB]");
}

static const char *one_var;
static const char *one_val;
static const char *get_one(const char *name)
{
    return strcmp(name, one_var) == 0 ? one_val : NULL;
}
static int bad;
static char bad_line[512];
static void on_warn(const char *line)
{
    bad = 1;
    snprintf(bad_line, sizeof bad_line, "%s", line);
}

/* Reject a flag value the library would reject, using the library's parser. */
static int valid(const char *var, const char *val)
{
    struct tp_config c;
    one_var = var;
    one_val = val;
    bad = 0;
    tp_config_load(&c, get_one, on_warn);
    tp_config_free(&c);
    return !bad;
}

static int exists(const char *p)
{
    return p && access(p, R_OK) == 0;
}

const char *tp_find_library(char *err, size_t errlen)
{
    static char path[PATH_MAX + 32];
    const char *env = getenv("TPROF_LIB");
    if (env && *env) {
        if (exists(env))
            return env;
        snprintf(err, errlen, "TPROF_LIB=%s: no such file", env);
        return NULL;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, sizeof path, "%s/.libs/libtprof.so", self);
            if (exists(path))
                return path;
            snprintf(path, sizeof path, "%s/../lib/libtprof.so", self);
            if (exists(path))
                return realpath(path, self) ? strcpy(path, self) : path;
        }
    }
    snprintf(path, sizeof path, "%s/libtprof.so", TPROF_LIBDIR);
    if (exists(path))
        return path;
    snprintf(err, errlen, "libtprof.so not found (looked in .libs/ and ../lib/ beside tprof, and %s); set TPROF_LIB",
             TPROF_LIBDIR);
    return NULL;
}

int tp_cmd_run(int argc, char **argv)
{
    int i = 1;
    const char *lib = NULL;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--disable")) {
            setenv("TPROF_DISABLE", "1", 1);
            continue;
        }
        if (a[0] != '-')
            break; /* the command, without "--" */
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len == 5 && !strncmp(a, "--lib", 5)) {
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) {
                fprintf(stderr, "tprof run: --lib needs a value\n");
                return 2;
            }
            lib = v;
            continue;
        }
        size_t f;
        for (f = 0; f < NFLAGS; f++)
            if (strlen(flags[f].flag) == len && !strncmp(a, flags[f].flag, len))
                break;
        if (f == NFLAGS) {
            fprintf(stderr, "tprof run: unknown option '%s' (try 'tprof run --help')\n", a);
            return 2;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) {
            fprintf(stderr, "tprof run: %s needs a value\n", flags[f].flag);
            return 2;
        }
        if (!valid(flags[f].var, v)) {
            /* the parser's own words, without its "using <default>": here nothing runs */
            const char *why = strstr(bad_line, ": ");
            why = why ? strstr(why + 2, ": ") : NULL;
            char *cut = strstr(bad_line, "; using");
            if (cut)
                *cut = 0;
            fprintf(stderr, "tprof run: invalid value for %s: %s\n", flags[f].flag,
                    why ? why + 2 : v);
            return 2;
        }
        setenv(flags[f].var, v, 1);
    }
    if (i >= argc) {
        fprintf(stderr, "tprof run: no command given (usage: tprof run [options] -- cmd args...)\n");
        return 2;
    }
    char err[512];
    if (!lib)
        lib = tp_find_library(err, sizeof err);
    else if (!exists(lib)) {
        snprintf(err, sizeof err, "--lib %s: no such file", lib);
        lib = NULL;
    }
    if (!lib) {
        fprintf(stderr, "tprof run: %s\n", err);
        return 2;
    }
    /* Prepend to any LD_PRELOAD the user already has, so both stay loaded. */
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(n);
    if (!pre)
        return 2;
    snprintf(pre, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", pre, 1);
    execvp(argv[i], argv + i);
    fprintf(stderr, "tprof run: cannot run '%s': %s\n", argv[i], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
