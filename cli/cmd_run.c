/* tprof run: set the TPROF_* variables from flags, preload libtprof.so, exec the program.
 * tprof itself is replaced by the program (same pid), so exit status and signals are the
 * program's own. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/config.h"
#include "common/out/out.h"

/* Every flag is one TPROF_* variable; the value is validated by the library's own parser. */
static const struct {
    const char *flag, *var, *arg, *help;
} flags[] = {
    {"--output", "TPROF_OUTPUT", "F", "text report: stderr, none, or a path (%p %r %h expand)"},
    {"--json", "TPROF_JSON", "F", "JSON report path"},
    {"--trace", "TPROF_TRACE", "F", "Chrome trace (Perfetto) path"},
    {"--folded", "TPROF_FOLDED", "F", "folded stacks path (flame graphs)"},
    {"--ops", "TPROF_OPS", "GLOBS",
     "functions timed as ops (comma-separated globs, !glob excludes)"},
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
    {"--max-sites", "TPROF_MAX_SITES", "N",
     "fixed cap on call sites (default none: the memory budget)"},
    {"--json-sites", "TPROF_JSON_SITES", "N",
     "top N sites by each measure written to JSON, the rest rolled up (default 1000, 0 = all)"},
    {"--trace-cap", "TPROF_TRACE_CAP", "N",
     "op calls drawn one by one in the trace (default 1000000)"},
    {"--max-ops", "TPROF_MAX_OPS", "N", "fixed cap on ops (default none: the memory budget)"},
    {"--plt", "TPROF_PLT", "0|1",
     "0 (or no, off, false): do not hook shared-library exports through the PLT"},
    {"--hook-ns", "TPROF_HOOK_NS", "NS",
     "cost of one non-op instrumentation hook (default measured)"},
    {"--sample-hz", "TPROF_SAMPLE_HZ", "N",
     "CPU-time samples/s naming where time outside ops and inside each goes (default 100, 0 = "
     "off)"},
    {"--demote", "TPROF_DEMOTE", "K",
     "count, not time, ops whose first calls mostly take under K hooks' cost, the host's lowest "
     "measured (default 500; 0 off)"},
    {"--detail", "TPROF_DETAIL", "D",
     "text report: short (default: fits a terminal, ends with the verdict) or full"},
    {"--debuginfod", "TPROF_DEBUGINFOD", "0|1",
     "1: symbolisation may ask the DEBUGINFOD_URLS servers (default 0)"},
    {"--suppress", "TPROF_SUPPRESS", "FILE",
     "leak suppressions, LeakSanitizer's format (leak:pattern lines)"},
    {"--html", "TPROF_HTML", "F", "HTML report path: one self-contained page with charts"},
    {"--pprof", "TPROF_PPROF", "F",
     "pprof profile of the heap (gzipped profile.proto: go tool pprof, speedscope)"},
    {"--pprof-time", "TPROF_PPROF_TIME", "F",
     "pprof profile of op time: self ns, calls and FLOPs per op stack"},
    {"--work", "TPROF_WORK", "SPEC",
     "FLOPs/bytes of your functions from their parameters: 'fn: flops=2*m*n bytes=4*m*n; ...'"},
    {"--work-file", "TPROF_WORK_FILE", "FILE", "the same, one function per line"},
    {"--memory-budget", "TPROF_MEMORY_BUDGET", "SIZE",
     "memory the call-site and op tables and PLT stubs past 4096 may grow to (default "
     "max(5% of peak RSS, 64M))"},
    {"--sample", "TPROF_SAMPLE", "BYTES",
     "no longer supported, ignored with one line on stderr: the heap is recorded exactly"},
    {"--sample-seed", "TPROF_SAMPLE_SEED", "N", "no longer supported, ignored (as --sample)"},
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
    fprintf(f, "  %-24s %s\n", "--full", "the full text report [TPROF_DETAIL=full]");
    fprintf(f, "  %-24s %s\n", "--disable",
            "preload but pass everything through [TPROF_DISABLE=1]");
    fprintf(f, "  %-24s %s\n", "--lib PATH", "use this libtprof.so [TPROF_LIB]");
    fprintf(f, "\nEvery setting, from a flag or a TPROF_* variable already in the environment, is\n"
               "checked before cmd runs, output paths included (the template expands, the\n"
               "directory exists and is writable): a bad one is one line and exit status 2, and\n"
               "cmd does not run. Booleans take 0/1, yes/no, true/false or on/off, in any case.\n"
               "A regular file is replaced atomically (through a link, the file it points to); a\n"
               "path naming a device, a FIFO or /dev/fd/N (/dev/stderr...) is written in place.\n"
               "\nA cmd that the dynamic loader will not preload libtprof.so into (statically\n"
               "linked, or set-uid or set-gid to another user or group) runs all the same,\n"
               "without a report, after one line on stderr saying so.\n");
}

static const char *one_var;
static const char *one_val;
static const char *get_one(const char *name)
{
    return strcmp(name, one_var) == 0 ? one_val : NULL;
}
/* A setting that is gone (tp_config_gone) is not refused here: the library says it is ignored,
 * once, when the program starts. */
static const char *get_env(const char *name)
{
    return tp_config_gone(name) ? NULL : getenv(name);
}
static int bad;
static char bad_line[512];
static void on_warn(const char *line)
{
    if (!bad++)
        snprintf(bad_line, sizeof bad_line, "%s", line);
}

/* Run the library's parser, and its check of the output paths, exactly as the library will at
 * start-up: exec keeps the pid, so %p expands to the program's. Returns 1 when nothing warned;
 * else bad_line holds the first warning. */
static int check(const char *(*get)(const char *))
{
    struct tp_config c;
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    struct tp_path_ctx ctx = {(long)getpid(), tp_mpi_rank(get), host, 0, 0, 0};
    bad = 0;
    tp_config_load(&c, get, on_warn);
    tp_config_check_outputs(&c, &ctx, on_warn);
    tp_config_free(&c);
    return !bad;
}

/* Reject a flag value the library would reject, using the library's parser. */
static int valid(const char *var, const char *val)
{
    one_var = var;
    one_val = val;
    return check(get_one);
}

/* The reason part of a warning line "tprof: VAR=value: <why>; using <default>": here nothing
 * runs, so what the library would use instead does not apply. */
static const char *warning_reason(void)
{
    char *cut = strstr(bad_line, "; using");
    if (cut)
        *cut = 0;
    char *nl = strchr(bad_line, '\n');
    if (nl)
        *nl = 0;
    const char *why = strstr(bad_line, ": ");
    why = why ? strstr(why + 2, ": ") : NULL;
    return why ? why + 2 : bad_line;
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
        char shown[1024];
        snprintf(err, errlen, "TPROF_LIB=%s: no such file",
                 tp_escape_str(shown, sizeof shown, env));
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
    snprintf(
        err, errlen,
        "libtprof.so not found (looked in .libs/ and ../lib/ beside tprof, and %s); set TPROF_LIB",
        TPROF_LIBDIR);
    return NULL;
}

/* The options before the command: each sets its TPROF_* variable once its value passed the
 * same parser the library uses. Returns the index of the command (argc when there is none), or
 * -1 after printing why, or -2 after --help. */
static int parse_options(int argc, char **argv, const char **lib)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            return i + 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -2;
        }
        if (!strcmp(a, "--disable")) {
            setenv("TPROF_DISABLE", "1", 1);
            continue;
        }
        if (!strcmp(a, "--full")) {
            setenv("TPROF_DETAIL", "full", 1);
            continue;
        }
        if (a[0] != '-')
            break; /* the command, without "--" */
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        size_t f;
        for (f = 0; f < NFLAGS; f++)
            if (strlen(flags[f].flag) == len && !strncmp(a, flags[f].flag, len))
                break;
        int is_lib = len == 5 && !strncmp(a, "--lib", 5);
        if (f == NFLAGS && !is_lib) {
            char shown[1024];
            fprintf(stderr, "tprof run: unknown option '%s' (try 'tprof run --help')\n",
                    tp_escape_str(shown, sizeof shown, a));
            return -1;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) {
            fprintf(stderr, "tprof run: %s needs a value\n", is_lib ? "--lib" : flags[f].flag);
            return -1;
        }
        if (is_lib) {
            *lib = v;
            continue;
        }
        if (!tp_config_gone(flags[f].var) && !valid(flags[f].var, v)) {
            /* the parser's own words, without its "using <default>": here nothing runs */
            fprintf(stderr, "tprof run: invalid value for %s: %s\n", flags[f].flag,
                    warning_reason());
            return -1;
        }
        setenv(flags[f].var, v, 1);
    }
    return i;
}

int tp_cmd_run(int argc, char **argv)
{
    const char *lib = NULL;
    int i = parse_options(argc, argv, &lib);
    if (i == -2)
        return 0;
    if (i < 0)
        return 2;
    if (i >= argc) {
        fprintf(stderr,
                "tprof run: no command given (usage: tprof run [options] -- cmd args...)\n");
        return 2;
    }
    /* The environment the program will get, flags and inherited TPROF_* variables together,
     * through the same parser: a setting the library would warn about is refused now, before
     * the program runs, rather than found wrong when it ends. */
    if (!check(get_env)) {
        if (strncmp(bad_line, "tprof: ", 7) == 0)
            memmove(bad_line, bad_line + 7, strlen(bad_line + 7) + 1);
        char *cut = strstr(bad_line, "; using");
        if (cut)
            *cut = 0;
        bad_line[strcspn(bad_line, "\n")] = 0;
        fprintf(stderr, "tprof run: %s\n", bad_line);
        return 2;
    }
    char err[512];
    if (!lib)
        lib = tp_find_library(err, sizeof err);
    else if (!exists(lib)) {
        char shown[1024];
        snprintf(err, sizeof err, "--lib %s: no such file",
                 tp_escape_str(shown, sizeof shown, lib));
        lib = NULL;
    }
    if (!lib) {
        fprintf(stderr, "tprof run: %s\n", err);
        return 2;
    }
    /* A relative path would be looked up from each process's own working directory: a child
     * that changes directory (make -C, a script's cd) would run without tprof. */
    char abs[PATH_MAX];
    if (lib[0] != '/' && realpath(lib, abs))
        lib = abs;
    /* Prepend to any LD_PRELOAD the user already has, so both stay loaded. */
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(n);
    if (!pre)
        return 2;
    snprintf(pre, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", pre, 1);
    tp_run_check_program(argv[i]);
    execvp(argv[i], argv + i);
    int e = errno;
    char shown[4096];
    fprintf(stderr, "tprof run: cannot run '%s': %s\n", tp_escape_str(shown, sizeof shown, argv[i]),
            strerror(e));
    return e == ENOENT ? 127 : 126;
}
