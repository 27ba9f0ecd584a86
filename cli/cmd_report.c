/* tprof report: report a record (what libtprof.so writes: report/record.h) or re-render a saved
 * JSON report, as text, JSON, HTML or folded stacks, optionally with other peaks. */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/config.h"
#include "common/out/out.h"
#include "cli/read/read.h"
#include "report/peaks/peaks.h"
#include "report/pprof/pprof.h"
#include "report/record.h"
#include "report/sym/sym.h"
#include "report/render/render.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof report FILE.json [--top N] [--full] [--wide]\n"
               "                    [--format text|json|folded|folded-heap]\n"
               "                    [--peak-gflops X --peak-gbps Y] [--html OUT.html]\n"
               "                    [--pprof OUT.pb.gz] [--pprof-time OUT.pb.gz]\n\n"
               "Renders a report written with TPROF_JSON (or `tprof run --json`) again, as text\n"
               "or JSON, or reports a record libtprof.so left when it found no tprof program\n"
               "beside itself (tprof-record.PID.json). Derived figures are recomputed; new\n"
               "machine peaks re-derive every op's bound and efficiency and the verdict.\n\n"
               "  --top N          rows per section (default 10)\n"
               "  --full           the full text report (latency, shapes, steps, Amdahl, every\n"
               "                   call site, the heap chart, every note); by default the\n"
               "                   short one, which fits a terminal and ends with the verdict\n"
               "  --wide           C++ names and call sites' stacks whole, past the width (by\n"
               "                   default a name's template arguments and parameters are\n"
               "                   folded to fit, a stack cut at the width)\n"
               "  --format F       text (default), json, folded (op time in ns, from op_stacks:\n"
               "                   the run needs TPROF_FOLDED) or folded-heap (bytes live at\n"
               "                   the heap peak per call site), for flamegraph.pl\n"
               "  --peak-gflops X  machine peak GFLOP/s for the roofline\n"
               "  --peak-gbps Y    machine peak GB/s for the roofline\n"
               "  -                as FILE reads stdin\n"
               "  --html OUT       write the HTML report (one self-contained page: tables,\n"
               "                   flame graphs, heap over time, step latency) to OUT instead\n"
               "  --pprof OUT      write the heap as a pprof profile (gzipped profile.proto:\n"
               "                   alloc_objects, alloc_space, leak_space, peak_space per call\n"
               "                   site) to OUT instead, for go tool pprof and speedscope\n"
               "  --pprof-time OUT write op time as a pprof profile (calls, flops, self ns per\n"
               "                   stack of nested ops; the run needs op stacks) to OUT instead\n"
               "  --from-library   how libtprof.so has its records reported, FILE -: each\n"
               "                   request on standard input a line \"KINDS TOP LENGTH\" and\n"
               "                   the record; each output of KINDS (json, text, html, folded,\n"
               "                   folded-heap, pprof, pprof-time, comma-separated) back on\n"
               "                   standard output as a line \"KIND LENGTH\" and its bytes,\n"
               "                   then \"end 0\"; KINDS run: the record is a list of\n"
               "                   record files, one a line, each reported to its own JSON\n"
               "                   report in its place\n");
}

struct opts {
    const char *file, *format, *html, *pprof, *pprof_time;
    int library, full, wide;
    long top;
    double pg, pb; /* peaks from the command line, 0: the report's own */
};

/* -1 when the arguments are good (o filled), else the exit status after a line or --help. */
static int parse(int argc, char **argv, struct opts *o)
{
    const char *why;
    *o = (struct opts){NULL, "text", NULL, NULL, NULL, 0, 0, 0, 10, 0, 0};
    /* the detail of the text report, as TPROF_DETAIL gives it to a run; --full overrides */
    const char *d = getenv("TPROF_DETAIL");
    o->full = d && !strcmp(d, "full");
    if (d && *d && strcmp(d, "full") && strcmp(d, "short"))
        fprintf(stderr, "tprof report: TPROF_DETAIL=%s: expected short or full; the short report\n",
                tp_cli_shown(d));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--top") && v) {
            if (tp_parse_int(v, 1, 100000, &o->top, &why) < 0) {
                fprintf(stderr, "tprof report: --top %s: %s\n", tp_cli_shown(v), why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--format") && v) {
            if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "folded") &&
                strcmp(v, "folded-heap")) {
                fprintf(stderr,
                        "tprof report: --format %s: expected text, json, folded or "
                        "folded-heap\n",
                        tp_cli_shown(v));
                return 2;
            }
            o->format = v;
            i++;
        } else if (!strcmp(a, "--full")) {
            o->full = 1;
        } else if (!strcmp(a, "--wide")) {
            o->wide = 1;
        } else if (!strcmp(a, "--from-library")) {
            o->library = 1;
        } else if (!strcmp(a, "--html") && v) {
            o->html = v;
            i++;
        } else if (!strcmp(a, "--pprof") && v) {
            o->pprof = v;
            i++;
        } else if (!strcmp(a, "--pprof-time") && v) {
            o->pprof_time = v;
            i++;
        } else if ((!strcmp(a, "--peak-gflops") || !strcmp(a, "--peak-gbps")) && v) {
            double d;
            if (tp_parse_double(v, 1e-6, 1e9, &d, &why) < 0) {
                fprintf(stderr, "tprof report: %s %s: %s\n", a, tp_cli_shown(v), why);
                return 2;
            }
            if (!strcmp(a, "--peak-gflops"))
                o->pg = d;
            else
                o->pb = d;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tprof report: unknown option or missing value '%s' (try --help)\n",
                    tp_cli_shown(a));
            return 2;
        } else if (!o->file) {
            o->file = a;
        } else {
            fprintf(stderr, "tprof report: one file at a time ('%s')\n", tp_cli_shown(a));
            return 2;
        }
    }
    if (!o->file) {
        fprintf(stderr, "tprof report: needs a report: tprof report FILE.json (try --help)\n");
        return 2;
    }
    return -1;
}

/* Write one output as libtprof.so reads it (track/out/output.c): "KIND LENGTH\n" and the bytes. */
static int frame(const char *kind, const struct tp_buf *b)
{
    if (!tp_buf_ok(b))
        return 0; /* out of memory: that output is not written, the others are */
    printf("%s %zu\n", kind, b->len);
    return fwrite(b->p ? b->p : "", 1, b->len, stdout) == b->len ? 0 : -1;
}

/* The columns of the terminal fd is, 0 when it is none: a file or pipe gets 100 columns. */
static int term_cols(int fd)
{
    struct winsize ws;
    return isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

/* --from-library: every output asked for, from the one report. */
static int for_library(struct tp_report *r, const char *kinds, int top)
{
    int rc = 0;
    char *list = strdup(kinds), *save = NULL;
    for (char *k = list ? strtok_r(list, ",", &save) : NULL; k; k = strtok_r(NULL, ",", &save)) {
        struct tp_buf b;
        tp_buf_init(&b);
        if (!strcmp(k, "json")) {
            tp_render_json(r, &b);
        } else if (!strcmp(k, "text") || !strcmp(k, "fulltext")) {
            /* both answer as "text": the library writes it where the text goes */
            /* the reporter's stderr is the program's first one, where the text goes */
            struct tp_text_opts t = {top, 100, !strcmp(k, "fulltext"), term_cols(2)};
            tp_render_text(r, &t, &b);
            if (rc == 0 && frame("text", &b) < 0)
                rc = 1;
            tp_buf_free(&b);
            continue;
        } else if (!strcmp(k, "html")) {
            tp_render_html(r, top, &b);
        } else if (!strcmp(k, "folded")) {
            tp_render_folded(r, TP_FOLDED_TIME, &b);
        } else if (!strcmp(k, "folded-heap")) {
            tp_render_folded(r, TP_FOLDED_HEAP, &b);
        } else if (!strcmp(k, "pprof") || !strcmp(k, "pprof-time")) {
            if (tp_render_pprof(r, !strcmp(k, "pprof") ? TP_PPROF_HEAP : TP_PPROF_TIME, &b) < 0)
                b.oom = 1; /* not written, as any output memory ran out for */
        } else if (strcmp(k, "none") != 0) {
            fprintf(stderr, "tprof report: --from-library: unknown output '%s'\n", tp_cli_shown(k));
            rc = 2;
        }
        if (rc == 0 && strcmp(k, "none") != 0 && frame(k, &b) < 0)
            rc = 1;
        tp_buf_free(&b);
    }
    free(list);
    return rc;
}

/* One record the run's processes left, reported as the JSON report its process asked for and
 * put in its place; what cannot be reported stays a record, with one line. */
static void report_left(const char *path, struct tp_symbolizer **sym, int *opened)
{
    struct tp_report r;
    char err[512], shown[4200];
    const char *why = NULL;
    if (tp_report_read_json(path, &r, err, sizeof err) < 0) {
        fprintf(stderr, "tprof: %s; left as it is\n", err);
        return;
    }
    if (r.record.version) { /* else replaced by a report meanwhile: nothing to do */
        if (!(*opened)++)
            *sym = tp_sym_open(r.record.debuginfod);
        tp_record_report_with(&r, *sym);
        tp_analyze(&r);
        struct tp_buf b;
        tp_buf_init(&b);
        tp_render_json(&r, &b);
        if (!tp_buf_ok(&b) || tp_write_file(path, b.p, b.len, &why) < 0)
            fprintf(stderr, "tprof: cannot write %s: %s; the record stays there\n",
                    tp_escape_str(shown, sizeof shown, path),
                    tp_buf_ok(&b) ? why : "out of memory");
        tp_buf_free(&b);
    }
    tp_report_free(&r);
}

/* How many processes report a run's records side by side: the CPUs this process may run on, at
 * most 8, and at least 4 records each (a worker's symboliser reads a module again). */
static int workers_for(size_t n)
{
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    long most = (long)(n / 4);
    long k = cpus < most ? cpus : most;
    return k < 1 ? 1 : k > 8 ? 8 : (int)k;
}

/* --from-library's request "run": the records the run's other processes left
 * (common/out/rundir.c), one path a line, which the root's library took as it ended. They are
 * reported together, with one symboliser per worker, so that a module that many of them ran (a
 * compiler, libc) is read once per worker at most, not once per process; workers forked from
 * this process take the records in turn from a shared counter, so that the last of a build's
 * processes is not left to one CPU while the others are idle. */
static void report_run(char *list, struct tp_symbolizer **sym, int *opened)
{
    size_t n = 0, lines = 0; /* each path ends with a newline */
    for (const char *c = list; *c; c++)
        lines += *c == '\n';
    char **paths = calloc(lines + 1, sizeof *paths), *save = NULL;
    if (!paths) {
        fprintf(stderr, "tprof: out of memory for the run's %zu records; they stay records\n",
                lines);
        return;
    }
    for (char *p = strtok_r(list, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
        paths[n++] = p;
    int k = workers_for(n);
    _Atomic size_t *next =
        k > 1 ? mmap(NULL, sizeof *next, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
              : MAP_FAILED;
    if (next == MAP_FAILED) {
        for (size_t i = 0; i < n; i++)
            report_left(paths[i], sym, opened);
        free(paths);
        return;
    }
    pid_t kids[8];
    int nkids = 0;
    /* The first before the workers start: they inherit the modules it named, and the machine's
     * peaks it may have measured and cached (a quick measurement beside a busy worker would be
     * a busy one). */
    report_left(paths[0], sym, opened);
    atomic_store(next, 1);
    fflush(NULL); /* nothing buffered is written twice */
    for (int w = 1; w < k; w++) {
        pid_t p = fork();
        if (p == 0) {
            for (size_t i; (i = atomic_fetch_add(next, 1)) < n;)
                report_left(paths[i], sym, opened);
            fflush(NULL);
            _exit(0);
        }
        if (p > 0)
            kids[nkids++] = p;
    }
    for (size_t i; (i = atomic_fetch_add(next, 1)) < n;)
        report_left(paths[i], sym, opened);
    for (int w = 0; w < nkids; w++)
        while (waitpid(kids[w], NULL, 0) < 0 && errno == EINTR)
            ;
    munmap((void *)next, sizeof *next);
    free(paths);
}

/* --from-library: requests until the end of standard input, each answered whole, with one
 * symboliser for them all, so that a process's later reports (snapshots) name only what is new. */
static int serve(void)
{
    /* A session of its own: the terminal's ^C or a hang-up, sent to the program's process group
     * while its report is being made, must not cost the report (the program's own handling of
     * them, and tprof's, go on as they would). Then the signals libtprof.so blocked to start
     * this (preload/handoff.c). */
    setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct tp_symbolizer *sym = NULL;
    int opened = 0, rc = 0;
    char head[256];
    while (rc == 0 && fgets(head, sizeof head, stdin)) {
        char kinds[128], err[512];
        int top, used = 0;
        size_t len;
        if (sscanf(head, "%127s %d %zu%n", kinds, &top, &len, &used) != 3 || head[used] != '\n' ||
            top < 1) {
            fprintf(stderr, "tprof report: --from-library: not a request: %s", tp_cli_shown(head));
            return 2;
        }
        char *buf = malloc(len ? len : 1);
        if (!buf || fread(buf, 1, len, stdin) != len) {
            fprintf(stderr, "tprof report: --from-library: the record ends early\n");
            free(buf);
            return 2;
        }
        if (!strcmp(kinds, "run")) {
            char *list = strndup(buf, len);
            free(buf);
            if (list)
                report_run(list, &sym, &opened);
            free(list);
            printf("end 0\n");
            if (fflush(stdout) != 0)
                rc = 1;
            continue;
        }
        struct tp_report r;
        int bad = tp_report_parse_json("the record", buf, len, &r, err, sizeof err) < 0;
        free(buf);
        if (bad) {
            printf("fail %zu\n%s", strlen(err), err);
        } else {
            if (!opened++)
                sym = tp_sym_open(r.record.debuginfod);
            tp_record_report_with(&r, sym);
            tp_analyze(&r);
            rc = for_library(&r, kinds, top);
            tp_report_free(&r);
        }
        if (rc == 0)
            printf("end 0\n");
        if (fflush(stdout) != 0)
            rc = 1;
    }
    tp_sym_close(sym);
    return rc;
}

/* One output named on the command line, rendered and written: 1, or 0 after a line. */
static int write_one(const char *flag, const char *path, const struct tp_buf *b, int rendered)
{
    const char *why = NULL;
    int ok = rendered && tp_buf_ok(b) && tp_write_file(path, b->p, b->len, &why) == 0;
    if (!ok)
        fprintf(stderr, "tprof report: %s %s: %s\n", flag, tp_cli_shown(path),
                rendered && tp_buf_ok(b) ? why : "out of memory");
    return ok;
}

/* --html, --pprof, --pprof-time: each file named, in place of the report on standard output. */
static int write_files(const struct tp_report *r, const struct opts *o)
{
    int ok = 1;
    struct tp_buf b;
    if (o->html) {
        tp_buf_init(&b);
        tp_render_html(r, (int)o->top, &b);
        ok &= write_one("--html", o->html, &b, 1);
        tp_buf_free(&b);
    }
    if (o->pprof) {
        tp_buf_init(&b);
        ok &= write_one("--pprof", o->pprof, &b, tp_render_pprof(r, TP_PPROF_HEAP, &b) == 0);
        tp_buf_free(&b);
    }
    if (o->pprof_time) {
        if (r->nops && !r->nopstacks)
            fprintf(stderr,
                    "tprof report: %s has no op stacks (the run set none of TPROF_PPROF_TIME, "
                    "TPROF_FOLDED, TPROF_HTML): --pprof-time has each op on its own under "
                    "[calls off the stacks], not nested\n",
                    tp_cli_shown(o->file));
        tp_buf_init(&b);
        ok &= write_one("--pprof-time", o->pprof_time, &b,
                        tp_render_pprof(r, TP_PPROF_TIME, &b) == 0);
        tp_buf_free(&b);
    }
    return ok;
}

int tp_cmd_report(int argc, char **argv)
{
    struct opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.library)
        return serve();
    const char *file = o.file, *format = o.format;
    double pg = o.pg, pb = o.pb;
    struct tp_report r;
    char err[512];
    if (tp_report_read_json(file, &r, err, sizeof err) < 0) {
        fprintf(stderr, "tprof report: %s\n", err);
        return 2;
    }
    tp_record_report(&r);
    if (pg > 0) {
        r.machine.peak_gflops = pg;
    }
    if (pb > 0) {
        r.machine.peak_gbps = pb;
    }
    if (pg > 0 || pb > 0)
        tp_peaks_given(&r.machine, "command line");
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    if (o.html || o.pprof || o.pprof_time) {
        int ok = write_files(&r, &o);
        tp_report_free(&r);
        return ok ? 0 : 1;
    }
    if (!strcmp(format, "json")) {
        tp_render_json(&r, &b);
    } else if (!strcmp(format, "folded-heap")) {
        tp_render_folded(&r, TP_FOLDED_HEAP, &b);
    } else if (!strcmp(format, "folded")) {
        if (r.nops && !r.nopstacks)
            fprintf(stderr,
                    "tprof report: %s has no op stacks (the run did not set TPROF_FOLDED): "
                    "only the time outside ops is written\n",
                    file);
        tp_render_folded(&r, TP_FOLDED_TIME, &b);
    } else {
        struct tp_text_opts t = {(int)o.top, 100, o.full, term_cols(1), o.wide};
        tp_render_text(&r, &t, &b);
    }
    int ok =
        tp_buf_ok(&b) && fwrite(b.p ? b.p : "", 1, b.len, stdout) == b.len && fflush(stdout) == 0;
    if (!ok)
        fprintf(stderr, "tprof report: cannot write the report: %s\n",
                tp_buf_ok(&b) ? strerror(errno) : "out of memory");
    tp_buf_free(&b);
    tp_report_free(&r);
    return ok ? 0 : 1;
}
