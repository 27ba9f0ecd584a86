/* tprof merge: the arguments and files; the merge itself is cli/merge.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "cli/cli.h"
#include "common/out/out.h"
#include "cli/read/read.h"
#include "cli/merge/merge.h"
#include "report/record.h"
#include "report/render/render.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tprof merge FILE.json... -o OUT.json\n\n"
            "Merges the reports of many processes (MPI ranks, workers) into one. Ops and call\n"
            "sites are summed; per op the report keeps min / mean / max of its total time\n"
            "across processes and the imbalance max / mean (`tprof report OUT.json` shows\n"
            "them). The heap peak is the largest process's peak; a note gives their sum.\n"
            "Latency percentiles become sample-weighted means of each process's percentiles\n"
            "(a note says so). Inputs may be merged reports themselves.\n\n"
            "  -o OUT.json      where to write the merged report (- for stdout; a device or\n"
            "                   FIFO is written in place, a regular file replaced atomically)\n");
}

/* "-" is standard output; a file is written where it points (common/out/fileio.c): a regular file
 * atomically, so that a reader never sees half a report and a failure leaves no file; a device
 * or a FIFO in place. Returns 0, or -1 with *why. */
static int write_out(const char *out, const struct tp_buf *b, const char **why)
{
    if (!strcmp(out, "-")) {
        if (fwrite(b->p, 1, b->len, stdout) == b->len && fflush(stdout) == 0)
            return 0;
        *why = strerror(errno);
        return -1;
    }
    return tp_write_file(out, b->p, b->len, why);
}

int tp_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    size_t nf = 0;
    int nstdin = 0;
    if (!files)
        return 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            free(files);
            return 0;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tprof merge: unknown option or missing value '%s' (try --help)\n",
                    tp_cli_shown(argv[i]));
            free(files);
            return 2;
        } else {
            nstdin += !strcmp(argv[i], "-");
            files[nf++] = argv[i];
        }
    }
    const char *bad = !out         ? "needs -o OUT.json"
                      : nf == 0    ? "needs at least one report"
                      : nstdin > 1 ? "only one input can be stdin"
                                   : NULL;
    if (bad) {
        fprintf(stderr, "tprof merge: %s: tprof merge FILE.json... -o OUT.json (try --help)\n",
                bad);
        free(files);
        return 2;
    }
    struct tp_report *in = calloc(nf, sizeof *in);
    if (!in) {
        free(files);
        return 2;
    }
    char err[512];
    size_t nread = 0;
    int rc = 0;
    for (; nread < nf; nread++) {
        if (tp_report_read_json(files[nread], &in[nread], err, sizeof err) < 0) {
            fprintf(stderr, "tprof merge: %s\n", err);
            rc = 2;
            break;
        }
        tp_record_report(&in[nread]); /* a record is merged as the report it makes */
    }
    struct tp_report r;
    tp_report_init(&r);
    if (rc == 0) {
        if (tp_merge_reports(in, nf, files, &r) < 0) {
            fprintf(stderr, "tprof merge: out of memory\n");
            rc = 1;
        }
    }
    if (rc == 0) {
        tp_analyze(&r);
        struct tp_buf b;
        tp_buf_init(&b);
        tp_render_json(&r, &b);
        const char *why = strerror(ENOMEM);
        if (!tp_buf_ok(&b) || write_out(out, &b, &why) < 0) {
            fprintf(stderr, "tprof merge: cannot write %s: %s\n", tp_cli_shown(out), why);
            rc = 1;
        }
        tp_buf_free(&b);
    }
    tp_report_free(&r);
    for (size_t i = 0; i < nread; i++)
        tp_report_free(&in[i]);
    free(in);
    free(files);
    return rc;
}
