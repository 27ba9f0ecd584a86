/* tprof diff: what changed between two runs, op by op and site by site, biggest change first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "config.h"
#include "json_read.h"
#include "render.h"
#include "sitekey.h"
#include "units.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof diff BEFORE.json AFTER.json [--top N] [--format text|json]\n\n"
               "Per op (matched by name): calls, total and self time, GFLOP/s before and after;\n"
               "per call site (matched by its frames): own peak and live-at-peak bytes; the wall\n"
               "time and heap peak of the whole run. Sorted by the size of the change. Ops and\n"
               "sites found in one report only are shown as added or removed.\n");
}

struct row {
    const char *name;
    const struct tp_op *a, *b;
    double impact;
};

struct srow {
    char key[1024];
    const struct tp_site *a, *b;
    double impact;
};

static int by_impact(const void *x, const void *y)
{
    double a = ((const struct row *)x)->impact, b = ((const struct row *)y)->impact;
    return a < b ? 1 : a > b ? -1 : 0;
}

static int by_simpact(const void *x, const void *y)
{
    double a = ((const struct srow *)x)->impact, b = ((const struct srow *)y)->impact;
    return a < b ? 1 : a > b ? -1 : 0;
}

static double pct(double a, double b)
{
    return a > 0 ? 100.0 * (b - a) / a : 0;
}

static const struct tp_op *find_op(const struct tp_report *r, const char *name)
{
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].name && !strcmp(r->ops[i].name, name))
            return &r->ops[i];
    return NULL;
}

static size_t op_rows(const struct tp_report *A, const struct tp_report *B, struct row *rows)
{
    size_t n = 0;
    for (size_t i = 0; i < A->nops; i++)
        rows[n++] = (struct row){A->ops[i].name, &A->ops[i], find_op(B, A->ops[i].name), 0};
    for (size_t i = 0; i < B->nops; i++)
        if (!find_op(A, B->ops[i].name))
            rows[n++] = (struct row){B->ops[i].name, NULL, &B->ops[i], 0};
    for (size_t i = 0; i < n; i++) {
        double ta = rows[i].a ? (double)rows[i].a->total_ns : 0;
        double tb = rows[i].b ? (double)rows[i].b->total_ns : 0;
        rows[i].impact = fabs(tb - ta);
    }
    qsort(rows, n, sizeof *rows, by_impact);
    return n;
}

static size_t site_rows(const struct tp_report *A, const struct tp_report *B, struct srow *rows)
{
    size_t n = 0;
    char k[1024];
    for (size_t i = 0; i < A->memory.nsites; i++) {
        tp_site_key(&A->memory.sites[i], rows[n].key, sizeof rows[n].key);
        rows[n].a = &A->memory.sites[i];
        rows[n].b = NULL;
        for (size_t j = 0; j < B->memory.nsites; j++) {
            tp_site_key(&B->memory.sites[j], k, sizeof k);
            if (!strcmp(k, rows[n].key)) {
                rows[n].b = &B->memory.sites[j];
                break;
            }
        }
        n++;
    }
    for (size_t j = 0; j < B->memory.nsites; j++) {
        tp_site_key(&B->memory.sites[j], k, sizeof k);
        int seen = 0;
        for (size_t i = 0; i < n && !seen; i++)
            seen = rows[i].b == &B->memory.sites[j];
        if (!seen) {
            snprintf(rows[n].key, sizeof rows[n].key, "%s", k);
            rows[n].a = NULL;
            rows[n].b = &B->memory.sites[j];
            n++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        double pa = rows[i].a ? (double)rows[i].a->peak_live_bytes : 0;
        double pb = rows[i].b ? (double)rows[i].b->peak_live_bytes : 0;
        rows[i].impact = fabs(pb - pa);
    }
    qsort(rows, n, sizeof *rows, by_simpact);
    return n;
}

static void text(const struct tp_report *A, const struct tp_report *B, struct row *rows, size_t n,
                 struct srow *srows, size_t sn, size_t top, struct tp_buf *b)
{
    char x[32], y[32];
    tp_fmt_ns(A->program.wall_ns, x, sizeof x);
    tp_fmt_ns(B->program.wall_ns, y, sizeof y);
    tp_buf_printf(b, "wall time   %12s -> %-12s (%+.1f%%)\n", x, y,
                  pct((double)A->program.wall_ns, (double)B->program.wall_ns));
    tp_fmt_bytes(A->memory.peak_bytes, x, sizeof x);
    tp_fmt_bytes(B->memory.peak_bytes, y, sizeof y);
    tp_buf_printf(b, "heap peak   %12s -> %-12s (%+.1f%%)\n", x, y,
                  pct((double)A->memory.peak_bytes, (double)B->memory.peak_bytes));
    tp_fmt_count(A->memory.allocs, x, sizeof x);
    tp_fmt_count(B->memory.allocs, y, sizeof y);
    tp_buf_printf(b, "allocations %12s -> %-12s (%+.1f%%)\n", x, y,
                  pct((double)A->memory.allocs, (double)B->memory.allocs));
    if (n) {
        tp_buf_printf(b, "\nOPS (by change in total time)\n%-28s %13s %19s %9s %15s\n", "op", "calls",
                      "total", "change", "GFLOP/s");
        for (size_t i = 0; i < n && i < top; i++) {
            const struct tp_op *a = rows[i].a, *c = rows[i].b;
            char name[30], ca[16], cb[16], ta[16], tb[16], ch[16], ga[16], gb[16];
            tp_fmt_fit(rows[i].name, 28, name, sizeof name);
            tp_fmt_count(a ? a->calls : 0, ca, sizeof ca);
            tp_fmt_count(c ? c->calls : 0, cb, sizeof cb);
            tp_fmt_ns(a ? a->total_ns : 0, ta, sizeof ta);
            tp_fmt_ns(c ? c->total_ns : 0, tb, sizeof tb);
            if (!a)
                snprintf(ch, sizeof ch, "added");
            else if (!c)
                snprintf(ch, sizeof ch, "removed");
            else
                snprintf(ch, sizeof ch, "%+.1f%%", pct((double)a->total_ns, (double)c->total_ns));
            snprintf(ga, sizeof ga, "%.2f", a ? a->gflops : 0);
            snprintf(gb, sizeof gb, "%.2f", c ? c->gflops : 0);
            tp_buf_printf(b, "%-28s %6s>%-6s %9s>%-9s %9s %7s>%-7s\n", name, ca, cb, ta, tb, ch,
                          ga, gb);
        }
    }
    if (sn) {
        tp_buf_printf(b, "\nCALL SITES (by change in own peak)\n%-21s %-21s  %s\n",
                      "own peak", "live at heap peak", "site");
        for (size_t i = 0; i < sn && i < top; i++) {
            const struct tp_site *a = srows[i].a, *c = srows[i].b;
            char pa[16], pb[16], la[16], lb[16], site[64];
            tp_fmt_bytes(a ? a->peak_live_bytes : 0, pa, sizeof pa);
            tp_fmt_bytes(c ? c->peak_live_bytes : 0, pb, sizeof pb);
            tp_fmt_bytes(a ? a->live_at_peak_bytes : 0, la, sizeof la);
            tp_fmt_bytes(c ? c->live_at_peak_bytes : 0, lb, sizeof lb);
            const struct tp_site *s = a ? a : c;
            char fr[300] = "?";
            if (s->nframes)
                tp_fmt_frame(&s->frames[0], fr, sizeof fr);
            snprintf(site, sizeof site, "%s%s", !a ? "(added) " : !c ? "(removed) " : "", fr);
            char fit[60];
            tp_fmt_fit(site, 54, fit, sizeof fit);
            tp_buf_printf(b, "%9s>%-11s %9s>%-11s  %s\n", pa, pb, la, lb, fit);
        }
    }
}

static void json(const struct tp_report *A, const struct tp_report *B, struct row *rows, size_t n,
                 struct srow *srows, size_t sn, struct tp_buf *b)
{
    tp_buf_printf(b, "{\"schema\":1,\"kind\":\"tprof-diff\",\"wall_ns\":[%llu,%llu],"
                     "\"peak_bytes\":[%llu,%llu],\"allocs\":[%llu,%llu],\"ops\":[",
                  (unsigned long long)A->program.wall_ns, (unsigned long long)B->program.wall_ns,
                  (unsigned long long)A->memory.peak_bytes, (unsigned long long)B->memory.peak_bytes,
                  (unsigned long long)A->memory.allocs, (unsigned long long)B->memory.allocs);
    for (size_t i = 0; i < n; i++) {
        const struct tp_op *a = rows[i].a, *c = rows[i].b;
        tp_buf_printf(b, "%s{\"name\":", i ? "," : "");
        /* names are symbols; escape the two characters JSON needs escaped */
        tp_buf_putc(b, '"');
        for (const char *p = rows[i].name; p && *p; p++) {
            if (*p == '"' || *p == '\\')
                tp_buf_putc(b, '\\');
            if ((unsigned char)*p >= 0x20)
                tp_buf_putc(b, *p);
        }
        tp_buf_printf(b, "\",\"status\":\"%s\",\"calls\":[%llu,%llu],\"total_ns\":[%llu,%llu],"
                         "\"self_ns\":[%llu,%llu],\"gflops\":[%.6g,%.6g]}",
                      !a ? "added" : !c ? "removed" : "both",
                      (unsigned long long)(a ? a->calls : 0), (unsigned long long)(c ? c->calls : 0),
                      (unsigned long long)(a ? a->total_ns : 0), (unsigned long long)(c ? c->total_ns : 0),
                      (unsigned long long)(a ? a->self_ns : 0), (unsigned long long)(c ? c->self_ns : 0),
                      a ? a->gflops : 0.0, c ? c->gflops : 0.0);
    }
    tp_buf_puts(b, "],\"sites\":[");
    for (size_t i = 0; i < sn; i++) {
        const struct tp_site *a = srows[i].a, *c = srows[i].b;
        tp_buf_printf(b, "%s{\"key\":\"", i ? "," : "");
        for (const char *p = srows[i].key; *p; p++) {
            if (*p == '"' || *p == '\\')
                tp_buf_putc(b, '\\');
            if ((unsigned char)*p >= 0x20)
                tp_buf_putc(b, *p);
        }
        tp_buf_printf(b, "\",\"status\":\"%s\",\"peak_live_bytes\":[%llu,%llu],"
                         "\"live_at_peak_bytes\":[%llu,%llu]}",
                      !a ? "added" : !c ? "removed" : "both",
                      (unsigned long long)(a ? a->peak_live_bytes : 0),
                      (unsigned long long)(c ? c->peak_live_bytes : 0),
                      (unsigned long long)(a ? a->live_at_peak_bytes : 0),
                      (unsigned long long)(c ? c->live_at_peak_bytes : 0));
    }
    tp_buf_puts(b, "]}\n");
}

int tp_cmd_diff(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL}, *format = "text", *why;
    long top = 10;
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--top") && v) {
            if (tp_parse_int(v, 1, 100000, &top, &why) < 0) {
                fprintf(stderr, "tprof diff: --top %s: %s\n", v, why);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--format") && v) {
            if (strcmp(v, "text") && strcmp(v, "json")) {
                fprintf(stderr, "tprof diff: --format %s: expected text or json\n", v);
                return 2;
            }
            format = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tprof diff: unknown option or missing value '%s' (try --help)\n", a);
            return 2;
        } else if (nf < 2) {
            files[nf++] = a;
        } else {
            fprintf(stderr, "tprof diff: two reports, not more ('%s')\n", a);
            return 2;
        }
    }
    if (nf != 2) {
        usage(stderr);
        return 2;
    }
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
    tp_analyze(&A);
    tp_analyze(&B);
    struct row *rows = calloc(A.nops + B.nops + 1, sizeof *rows);
    struct srow *srows = calloc(A.memory.nsites + B.memory.nsites + 1, sizeof *srows);
    int rc = 1;
    if (rows && srows) {
        size_t n = op_rows(&A, &B, rows), sn = site_rows(&A, &B, srows);
        struct tp_buf b;
        tp_buf_init(&b);
        if (!strcmp(format, "json"))
            json(&A, &B, rows, n, srows, sn, &b);
        else
            text(&A, &B, rows, n, srows, sn, (size_t)top, &b);
        fwrite(b.p ? b.p : "", 1, b.len, stdout);
        rc = tp_buf_ok(&b) ? 0 : 1;
        tp_buf_free(&b);
    }
    free(rows);
    free(srows);
    tp_report_free(&A);
    tp_report_free(&B);
    return rc;
}
