/* libFuzzer target: the JSON reader (cli/read/json_read.c) and everything the CLI does with what it
 * reads. How to build and run it: fuzz/README.md.
 *
 * Properties checked on every input, beyond "no crash, no leak, no undefined behaviour":
 * - a rejected input gives exactly one non-empty line naming the file;
 * - an accepted input survives tp_analyze and both renderers, and its JSON rendering reads back
 *   (the writer and the reader agree on every document the reader accepts);
 * - the diff of the report with itself and with an empty report renders, and its JSON is JSON;
 * - the merge of the report with itself reads back after rendering. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/read/read.h"
#include "report/render/render.h"
#include "shims.h"

static void must(int ok, const char *what, const char *detail)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_json_read: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Render r as JSON and read it back; abort when the reader refuses what the writer wrote. */
static void json_reads_back(const struct tp_report *r, const char *what)
{
    struct tp_buf b;
    struct tp_report back;
    char err[512] = "";
    tp_buf_init(&b);
    tp_render_json(r, &b);
    must(tp_buf_ok(&b), what, "out of memory");
    must(tp_report_parse_json("rendered.json", b.p, b.len, &back, err, sizeof err) == 0, what, err);
    must(back.nops == r->nops && back.memory.nsites == r->memory.nsites, what, "counts differ");
    tp_report_free(&back);
    tp_buf_free(&b);
}

static void diff(const struct tp_report *a, const struct tp_report *b)
{
    struct tp_buf t;
    char *js = NULL;
    tp_buf_init(&t);
    if (tp_fuzz_diff(a, b, &t, &js) == 0) {
        must(js != NULL, "diff", "no JSON");
        struct json_object *o = json_tokener_parse(js);
        must(o != NULL, "diff JSON does not parse", js);
        json_object_put(o);
    }
    free(js);
    tp_buf_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tp_report r;
    char err[512] = "";
    if (tp_report_parse_json("fuzz.json", (const char *)data, size, &r, err, sizeof err) < 0) {
        must(err[0] != 0, "rejected without a message", NULL);
        must(strchr(err, '\n') == NULL, "message of more than one line", err);
        must(strncmp(err, "fuzz.json: ", 11) == 0, "message does not name the file", err);
        return 0;
    }
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {10, 100};
    tp_render_text(&r, &o, &b);
    tp_buf_free(&b);
    json_reads_back(&r, "rendered report");

    struct tp_report empty;
    tp_report_init(&empty);
    diff(&r, &r);
    diff(&empty, &r);
    diff(&r, &empty);
    tp_report_free(&empty);

    struct tp_report two[2] = {r, r}, m;
    if (tp_fuzz_merge(two, 2, &m) == 0)
        json_reads_back(&m, "merged report");
    tp_report_free(&m);
    tp_report_free(&r);
    return 0;
}
