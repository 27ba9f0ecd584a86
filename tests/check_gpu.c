/* The text report's GPU section (report/render/render_text_gpu.c) of hand-made reports: every line
 * it can print, the short report's cut (three sites and kernels, no memsets), the notes on frees
 * of unknown memory and on allocations the tables could not keep, a program with launches but no
 * device memory, and no section for a program that made no driver call. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/render/render.h"
#include "report/report.h"

static char *text(const struct tp_report *r, int full)
{
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {10, 100, full, 0, 0};
    tp_render_text(r, &o, &b);
    char *s = strdup(tp_buf_str(&b));
    tp_buf_free(&b);
    return s;
}

/* The text with each run of spaces and newlines as one space: a line's wrapping is the width's. */
static char *flat(const char *s)
{
    char *o = malloc(strlen(s) + 1), *p = o;
    for (; *s; s++)
        if ((*s == ' ' || *s == '\n') && p > o && p[-1] == ' ')
            continue;
        else
            *p++ = *s == '\n' ? ' ' : *s;
    *p = 0;
    return o;
}

static void has(const char *s, const char *line)
{
    char *f = flat(s);
    /* Check's messages are bounded: the page is shown from its GPU section, cut */
    const char *at = strstr(s, "GPU (CUDA");
    ck_assert_msg(strstr(f, line) != NULL, "no \"%s\" in:\n%.3000s", line, at ? at : s);
    free(f);
}

static void site(struct tp_gpu *g, const char *fn, int line, const char *kind, uint64_t at_peak)
{
    struct tp_gpu_site *s = &g->sites[g->nsites++];
    s->frames = calloc(2, sizeof *s->frames);
    s->frames[0].function = strdup(fn);
    s->frames[0].file = strdup("model.cu");
    s->frames[0].line = line;
    s->frames[1].function = strdup("main");
    s->frames[1].file = strdup("model.cu");
    s->frames[1].line = 90;
    s->nframes = 2;
    s->kind = strdup(kind);
    s->device = 1;
    s->bytes = s->live_at_peak_bytes = at_peak;
    s->allocs = 1;
}

static void kernel(struct tp_gpu *g, const char *name, uint64_t launches, const char *op)
{
    struct tp_gpu_kernel *k = &g->kernels[g->nkernels++];
    k->name = name ? strdup(name) : NULL;
    k->launches = launches;
    k->grid_x = 128, k->grid_y = 1, k->grid_z = 1;
    k->block_x = 256, k->block_y = 1, k->block_z = 1;
    k->op = op ? strdup(op) : NULL;
}

static void program(struct tp_report *r)
{
    r->tprof_version = strdup("9.9.9");
    r->program.exe = strdup("/opt/m/model");
    r->program.wall_ns = 1000000000ull;
}

START_TEST(test_section)
{
    struct tp_report r;
    tp_report_init(&r);
    program(&r);
    struct tp_gpu *g = &r.gpu;
    g->used = 1;
    g->driver_calls = 100;
    g->devices = calloc(1, sizeof *g->devices);
    g->devices[0] = (struct tp_gpu_device){1,       3ull << 30, 250000000, strdup("train_step"),
                                           5,       4,        5ull << 30,  1ull << 20,
                                           1};
    g->ndevices = 1;
    g->sites = calloc(5, sizeof *g->sites);
    site(g, "alloc_weights", 10, "device", 2ull << 30);
    site(g, "alloc_kv", 20, "managed", 512ull << 20);
    site(g, "alloc_tmp", 30, "async", 256ull << 20);
    site(g, "alloc_out", 40, "device", 1ull << 20);
    g->copies = calloc(2, sizeof *g->copies);
    g->copies[0] = (struct tp_gpu_copy){strdup("htod"), 4, 1, 2ull << 30, 300000000};
    g->copies[1] = (struct tp_gpu_copy){strdup("dtoh"), 1, 0, 4096, 50000};
    g->ncopies = 2;
    g->kernels = calloc(5, sizeof *g->kernels);
    kernel(g, "gemm_kernel", 400, "train_step");
    kernel(g, "softmax", 100, NULL);
    kernel(g, NULL, 20, NULL);
    kernel(g, "layernorm", 10, NULL);
    g->syncs = calloc(2, sizeof *g->syncs);
    g->syncs[0] = (struct tp_gpu_sync){strdup("context"), 1, 100000000, 0};
    g->syncs[1] = (struct tp_gpu_sync){strdup("event"), 9, 150000000, 150000000};
    g->nsyncs = 2;
    g->gemms = calloc(4, sizeof *g->gemms);
    const char *fns[] = {"cublasSgemm_v2", "cublasGemmEx", "cublasHgemm", "cublasDgemm_v2"};
    for (int i = 0; i < 4; i++)
        g->gemms[i] = (struct tp_gpu_gemm){strdup(fns[i]), strdup(i == 1 ? "bf16" : "f32"),
                                           strdup("N"), strdup(i ? "N" : "T"),
                                           1024, 1024, 1024, i == 1 ? 4 : 1, 10,
                                           (uint64_t)(i == 1 ? 4 : 1) * 21474836480ull / (1 + i),
                                           1000000};
    g->ngemms = 4;
    g->gemms_untracked = 3;
    g->memset_calls = 2;
    g->memset_bytes = 3ull << 20;
    g->unknown_frees = 2;
    g->untracked_allocs = 7;

    char *s = text(&r, 1);
    has(s, "GPU (CUDA driver calls) ---");
    has(s, "device 1: peak 3.00 GiB at 250 ms into the run, inside train_step; 1.00 MiB in 1 "
           "allocation still allocated at exit (of 5 made)");
    has(s, " 2.00 GiB on device 1 (device): alloc_weights (model.cu:10) < main (model.cu:90) 512");
    has(s, " 512 MiB on device 1 (managed): alloc_kv (model.cu:20) < main (model.cu:90) 256");
    has(s, " 256 MiB on device 1 (async): alloc_tmp (model.cu:30) < main (model.cu:90) 1.00");
    has(s, " 1.00 MiB on device 1 (device): alloc_out (model.cu:40) < main (model.cu:90) copies:");
    has(s, "copies: to the device 2.00 GiB in 4 calls (1 asynchronous), to the host 4.00 KiB in 1 "
           "call; the synchronous ones took 300 ms of the host");
    has(s, "kernels: 530 launches of 4 kernels: gemm_kernel 400 (grid 128x1x1, block 256x1x1, "
           "from train_step), softmax 100 (grid 128x1x1, block 256x1x1), (unnamed) 20 (grid "
           "128x1x1, block 256x1x1), layernorm 10 (grid 128x1x1, block 256x1x1); their time on "
           "the device is not measured (the host's calls only)");
    has(s, "waiting: the host waited 250 ms for the device (25.0% of the run) in 10 synchronise "
           "calls (context, event); 150 ms of it inside ops");
    has(s, "memsets: 3.00 MiB in 2 calls");
    has(s, "cuBLAS: cublasSgemm_v2 1024x1024x1024 NT f32 x10 (21.5 GFLOP), cublasGemmEx "
           "1024x1024x1024 NN bf16 batch 4 x10 (42.9 GFLOP), cublasHgemm 1024x1024x1024 NN f32 "
           "x10 (7.16 GFLOP), cublasDgemm_v2 1024x1024x1024 NN f32 x10 (5.37 GFLOP); 77 GFLOP "
           "in all, launched in 4.00 ms of the host; their time on the device is not measured, "
           "so no GFLOP/s");
    has(s, "note: 3 cuBLAS products of shapes past the first 512 are not in the cuBLAS line");
    has(s, "note: 2 device frees of memory tprof did not see allocated");
    has(s, "note: 7 device allocations were not kept (the tables were full): the peaks leave them "
           "out");
    free(s);
    /* the short report: three sites, three kernels and the rest counted, no memsets */
    s = text(&r, 0);
    has(s, "512 MiB on device 1 (managed)");
    ck_assert_ptr_null(strstr(s, "alloc_out"));
    ck_assert_ptr_null(strstr(s, "layernorm"));
    ck_assert_ptr_null(strstr(s, "memsets:"));
    has(s, "(unnamed) 20 (grid 128x1x1, block 256x1x1), 1 more in the JSON; their time on the "
           "device is not measured");
    has(s, "(7.16 GFLOP), 1 more shape in the JSON; 77 GFLOP in all");
    free(s);
    tp_report_free(&r);
}
END_TEST

/* The HTML page's GPU section: the same figures as the text, in sortable tables. */
START_TEST(test_html)
{
    struct tp_report r;
    tp_report_init(&r);
    program(&r);
    struct tp_gpu *g = &r.gpu;
    g->used = 1;
    g->devices = calloc(1, sizeof *g->devices);
    g->devices[0] = (struct tp_gpu_device){0, 1ull << 30, 5000000, NULL, 2, 1, 2ull << 30,
                                           1ull << 30, 1};
    g->ndevices = 1;
    g->sites = calloc(1, sizeof *g->sites);
    site(g, "alloc_weights", 10, "managed", 1ull << 30);
    g->kernels = calloc(1, sizeof *g->kernels);
    kernel(g, "gemm_kernel", 400, "train_step");
    g->gemms = calloc(1, sizeof *g->gemms);
    g->gemms[0] = (struct tp_gpu_gemm){strdup("cublasGemmEx"), strdup("bf16"), strdup("T"),
                                       strdup("N"), 64, 32, 16, 2, 3, 2 * 64 * 32 * 16 * 2 * 3,
                                       1500};
    g->ngemms = 1;
    g->copies = calloc(1, sizeof *g->copies);
    g->copies[0] = (struct tp_gpu_copy){strdup("dtoh"), 4, 2, 8192, 70000};
    g->ncopies = 1;
    g->syncs = calloc(1, sizeof *g->syncs);
    g->syncs[0] = (struct tp_gpu_sync){strdup("stream"), 3, 9000000, 4000000};
    g->nsyncs = 1;
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    const char *s = tp_buf_str(&b);
    has(s, "<h2>GPU (CUDA driver calls)</h2> <p>Times are the host's: a kernel's time on the device "
           "is not measured, so cuBLAS's products have FLOPs but no GFLOP/s.</p>");
    has(s, "<p class=\"gpu-device\">device 0: peak 1.00 GiB at 5.00 ms into the run; 1.00 GiB in "
           "1 allocation still allocated at exit (of 2 made).</p>");
    has(s, "<table class=\"sortable\" id=\"gpu-sites\">");
    has(s, ">managed</td><td class=\"l\">alloc_weights (model.cu:10) &lt; main (model.cu:90)</td>");
    has(s, "<table class=\"sortable\" id=\"gpu-kernels\">");
    has(s, ">gemm_kernel</td>");
    has(s, ">128x1x1</td>");
    has(s, ">train_step</td>");
    has(s, "<table class=\"sortable\" id=\"gpu-gemms\">");
    has(s, ">cublasGemmEx</td>");
    has(s, ">64x32x16</td>");
    has(s, ">TN</td><td class=\"l\">bf16</td>");
    has(s, ">0.000393</td>");
    has(s, "<table class=\"sortable\" id=\"gpu-copies\">");
    has(s, ">dtoh</td>");
    has(s, ">8.00 KiB</td>");
    has(s, "<table class=\"sortable\" id=\"gpu-syncs\">");
    has(s, ">9.00 ms</td>");
    tp_buf_free(&b);
    /* no device memory: said; no driver call: no section */
    free(g->devices);
    g->devices = NULL;
    g->ndevices = 0;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    has(tp_buf_str(&b), "<p>No device memory was allocated through the driver.</p>");
    tp_buf_free(&b);
    g->used = 0;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert_ptr_null(strstr(tp_buf_str(&b), "GPU (CUDA"));
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_no_memory)
{
    struct tp_report r;
    tp_report_init(&r);
    program(&r);
    r.gpu.used = 1;
    r.gpu.kernels = calloc(1, sizeof *r.gpu.kernels);
    kernel(&r.gpu, "k", 1, NULL);
    char *s = text(&r, 1);
    has(s, "GPU (CUDA driver calls) ---");
    has(s, "no device memory was allocated through the driver");
    has(s, "kernels: 1 launch of 1 kernel: k 1 (grid 128x1x1, block 256x1x1)");
    ck_assert_ptr_null(strstr(s, "waiting:"));
    ck_assert_ptr_null(strstr(s, "copies:"));
    free(s);
    r.gpu.used = 0; /* no driver call: no section */
    s = text(&r, 1);
    ck_assert_ptr_null(strstr(s, "GPU ("));
    free(s);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, test_section);
    tcase_add_test(tc, test_no_memory);
    tcase_add_test(tc, test_html);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
