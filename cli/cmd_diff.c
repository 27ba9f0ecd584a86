/* tprof diff: the arguments and files; the comparison itself is cli/diff.c. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "cli/cli.h"
#include "common/config.h"
#include "cli/diff/diff.h"
#include "cli/read/read.h"
#include "report/record.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof diff BEFORE.json AFTER.json [--top N] [--all] [--format text|json]\n"
               "                  [--max-regress PCT]\n\n"
               "Compares two reports. Per op (matched by name): calls, total and self time and\n"
               "GFLOP/s before and after, with the change in absolute terms and in percent. Per\n"
               "call site (matched by its frames): its own peak and its live bytes at the heap\n"
               "peak. For the whole run: wall time, heap peak, allocations. Ops are sorted by the\n"
               "size of the change in total time, sites by the change in their own peak; ops and\n"
               "sites found in one report only are marked added or removed, or rolled up when\n"
               "that report rolled them into a row per function (TPROF_JSON_SITES): their change\n"
               "is unknown. Per function and module: the sites written and the rolled-up rows\n"
               "summed, exact on both sides (in the text when either report rolled sites up).\n"
               "Each op's time per call changes with a 95%% interval (Welch, from each run's\n"
               "calls after warm-up) and is significant when the interval excludes 0; the\n"
               "step's median when the two medians' intervals do not overlap. A line warns\n"
               "when the two reports come from different programs or machines.\n\n"
               "  --top N          rows per section in the text form (default 10; JSON has all)\n"
               "  --all            also the ops without a significant change and the sites\n"
               "                   with the same figures, which the text hides\n"
               "  --max-regress P  exit 1 when an op's self time, the step's median or the\n"
               "                   heap peak grew by more than P percent (5 or 5%%), the change\n"
               "                   significant (the heap peak is exact), listing each; 0 when\n"
               "                   none did; 2 on bad input\n"
               "  --format F       text (default) or json (shape in docs/cli.md)\n"
               "  -                either file may be - for stdin\n");
}

struct opts {
    const char *files[2], *format;
    long top;
    int all;
    double max_regress; /* percent; < 0: not asked */
};

/* -1 when the arguments are good (o filled), else the exit status after a line or --help. */
static int parse(int argc, char **argv, struct opts *o)
{
    const char *why;
    int nf = 0;
    *o = (struct opts){{NULL, NULL}, "text", 10, 0, -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--top") && v) {
            if (tp_parse_int(v, 1, 1000000, &o->top, &why) < 0) {
                fprintf(stderr, "tprof diff: --top %s: %s\n", tp_cli_shown(v), why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--all")) {
            o->all = 1;
        } else if (!strcmp(a, "--max-regress") && v) {
            char num[64];
            size_t len = strlen(v);
            snprintf(num, sizeof num, "%.*s", (int)(len && v[len - 1] == '%' ? len - 1 : len), v);
            if (len >= sizeof num || tp_parse_double(num, 0, 1e6, &o->max_regress, &why) < 0) {
                fprintf(stderr, "tprof diff: --max-regress %s: %s\n", tp_cli_shown(v),
                        len >= sizeof num ? "too long" : why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--format") && v) {
            if (strcmp(v, "text") && strcmp(v, "json")) {
                fprintf(stderr, "tprof diff: --format %s: expected text or json\n",
                        tp_cli_shown(v));
                return 2;
            }
            o->format = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tprof diff: unknown option or missing value '%s' (try --help)\n",
                    tp_cli_shown(a));
            return 2;
        } else if (nf < 2) {
            o->files[nf++] = a;
        } else {
            fprintf(stderr, "tprof diff: two reports, not more ('%s')\n", tp_cli_shown(a));
            return 2;
        }
    }
    if (nf != 2) {
        fprintf(stderr, "tprof diff: needs two reports: tprof diff BEFORE.json AFTER.json "
                        "(try --help)\n");
        return 2;
    }
    if (!strcmp(o->files[0], "-") && !strcmp(o->files[1], "-")) {
        fprintf(stderr, "tprof diff: only one of the two reports can be stdin\n");
        return 2;
    }
    return -1;
}

int tp_cmd_diff(int argc, char **argv)
{
    struct opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char **files = o.files, *format = o.format;
    struct tp_report A, B;
    char err[512];
    if (tp_report_read_json(files[0], &A, err, sizeof err) < 0) {
        fprintf(stderr, "tprof diff: %s\n", err);
        return 2;
    }
    if (tp_report_read_json(files[1], &B, err, sizeof err) < 0) {
        fprintf(stderr, "tprof diff: %s\n", err);
        tp_report_free(&A);
        return 2;
    }
    /* a record (a kept tprof-record.PID.json) is compared as the report it makes */
    tp_record_report(&A);
    tp_record_report(&B);
    struct tp_diff d;
    int written = 0;
    rc = 1;
    size_t regressions = 0;
    if (tp_diff_build(&A, &B, &d) == 0) {
        struct tp_buf b, reg;
        tp_buf_init(&b);
        tp_buf_init(&reg);
        d.all = o.all;
        if (o.max_regress >= 0)
            regressions = tp_diff_regressions(&d, &A, &B, o.max_regress, &reg);
        if (!strcmp(format, "json")) {
            struct json_object *j = tp_diff_json(&d, files[0], files[1], &A, &B);
            if (o.max_regress >= 0) {
                struct json_object *jr = json_object_new_array();
                for (char *p = reg.p, *e; p && (e = strchr(p, '\n')); p = e + 1)
                    json_object_array_add(jr, json_object_new_string_len(p, (int)(e - p)));
                json_object_object_add(j, "max_regress_pct", json_object_new_double(o.max_regress));
                json_object_object_add(j, "regressions", jr);
            }
            const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
                                                                  JSON_C_TO_STRING_NOSLASHESCAPE);
            if (s)
                tp_buf_printf(&b, "%s\n", s);
            else
                b.oom = 1;
            json_object_put(j);
        } else {
            tp_diff_text(&d, files[0], files[1], &A, &B, (size_t)o.top, &b);
            if (o.max_regress >= 0 && regressions)
                tp_buf_printf(&b, "\nREGRESSIONS past %g%% (significant):\n%s", o.max_regress,
                              tp_buf_str(&reg));
            else if (o.max_regress >= 0)
                tp_buf_printf(&b, "\nno significant regression past %g%%\n", o.max_regress);
        }
        tp_buf_free(&reg);
        if (tp_buf_ok(&b)) {
            written = 1;
            rc = fwrite(b.p ? b.p : "", 1, b.len, stdout) == b.len && fflush(stdout) == 0 ? 0 : 1;
        }
        tp_buf_free(&b);
        tp_diff_free(&d);
    }
    if (rc)
        fprintf(stderr, "tprof diff: %s%s\n", written ? "cannot write the diff: " : "out of memory",
                written ? strerror(errno) : "");
    tp_report_free(&A);
    tp_report_free(&B);
    return rc ? rc : regressions ? 1 : 0;
}
