/* The HTML report's GPU section (r->gpu): what the text's GPU section says, as a summary and
 * sortable tables: device memory by call site, kernels, cuBLAS's products, copies and the host's
 * waits for the device. Only for a program that made CUDA driver calls. */
#include <stdio.h>

#include "report/render/render_html.h"
#include "report/units.h"

static void devices(const struct tp_gpu *g, struct tp_buf *b)
{
    for (size_t i = 0; i < g->ndevices; i++) {
        const struct tp_gpu_device *d = &g->devices[i];
        char pk[32], at[32], left[32];
        tp_buf_printf(b, "<p class=\"gpu-device\">device %lld: peak %s at %s into the run",
                      (long long)d->device, tp_fmt_bytes(d->peak_bytes, pk, sizeof pk),
                      tp_fmt_ns(d->peak_ns, at, sizeof at));
        if (d->peak_op) {
            tp_buf_puts(b, ", inside ");
            tp_html_esc(b, d->peak_op);
        }
        tp_buf_printf(b, "; %s in %llu allocation%s still allocated at exit (of %llu made).</p>\n",
                      tp_fmt_bytes(d->live_at_exit_bytes, left, sizeof left),
                      (unsigned long long)d->live_at_exit_allocs,
                      d->live_at_exit_allocs == 1 ? "" : "s", (unsigned long long)d->allocs);
    }
}

static void sites(const struct tp_gpu *g, struct tp_buf *b, int top)
{
    static const char *const h[] = {"at peak", "allocated", "allocs",
                                    "device",  "kind",      "call site"};
    if (!g->nsites)
        return;
    tp_buf_puts(b, "<table class=\"sortable\" id=\"gpu-sites\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < g->nsites && (int)i < top; i++) {
        const struct tp_gpu_site *s = &g->sites[i];
        char t[32];
        tp_buf_puts(b, "<tr>");
        tp_html_num(b, (double)s->live_at_peak_bytes,
                    tp_fmt_bytes(s->live_at_peak_bytes, t, sizeof t));
        tp_html_num(b, (double)s->bytes, tp_fmt_bytes(s->bytes, t, sizeof t));
        tp_html_num(b, (double)s->allocs, tp_fmt_count(s->allocs, t, sizeof t));
        snprintf(t, sizeof t, "%lld", (long long)s->device);
        tp_html_num(b, (double)s->device, t);
        tp_html_text(b, s->kind ? s->kind : "?");
        /* the site's stack as a heap site's cell shows it */
        struct tp_site as = {.frames = s->frames, .nframes = s->nframes};
        tp_html_site(b, &as);
        tp_buf_puts(b, "</tr>\n");
    }
    tp_buf_puts(b, "</tbody></table>\n");
}

static void kernels(const struct tp_gpu *g, struct tp_buf *b, int top)
{
    static const char *const h[] = {"kernel", "launches", "grid", "block", "shared", "op"};
    if (!g->nkernels)
        return;
    tp_buf_puts(b, "<table class=\"sortable\" id=\"gpu-kernels\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < g->nkernels && (int)i < top; i++) {
        const struct tp_gpu_kernel *k = &g->kernels[i];
        char t[64];
        tp_buf_puts(b, "<tr>");
        tp_html_text(b, k->name ? k->name : "(unnamed)");
        tp_html_num(b, (double)k->launches, tp_fmt_count(k->launches, t, sizeof t));
        snprintf(t, sizeof t, "%llux%llux%llu", (unsigned long long)k->grid_x,
                 (unsigned long long)k->grid_y, (unsigned long long)k->grid_z);
        tp_html_num(b, (double)(k->grid_x * k->grid_y * k->grid_z), t);
        snprintf(t, sizeof t, "%llux%llux%llu", (unsigned long long)k->block_x,
                 (unsigned long long)k->block_y, (unsigned long long)k->block_z);
        tp_html_num(b, (double)(k->block_x * k->block_y * k->block_z), t);
        tp_html_num(b, (double)k->shared_bytes, tp_fmt_bytes(k->shared_bytes, t, sizeof t));
        tp_html_text(b, k->op ? k->op : "-");
        tp_buf_puts(b, "</tr>\n");
    }
    tp_buf_puts(b, "</tbody></table>\n");
}

static void gemms(const struct tp_gpu *g, struct tp_buf *b, int top)
{
    static const char *const h[] = {"cuBLAS", "m x n x k", "ops",   "type",
                                    "batch",  "calls",     "GFLOP", "launch time"};
    if (!g->ngemms)
        return;
    tp_buf_puts(b, "<table class=\"sortable\" id=\"gpu-gemms\">");
    tp_html_head(b, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < g->ngemms && (int)i < top; i++) {
        const struct tp_gpu_gemm *x = &g->gemms[i];
        char t[64], u[8];
        tp_buf_puts(b, "<tr>");
        tp_html_text(b, x->function ? x->function : "?");
        snprintf(t, sizeof t, "%llux%llux%llu", (unsigned long long)x->m, (unsigned long long)x->n,
                 (unsigned long long)x->k);
        tp_html_num(b, (double)x->m * (double)x->n * (double)x->k, t);
        snprintf(u, sizeof u, "%s%s", x->transa ? x->transa : "?", x->transb ? x->transb : "?");
        tp_html_text(b, u);
        tp_html_text(b, x->dtype ? x->dtype : "?");
        tp_html_num(b, (double)x->batch, tp_fmt_count(x->batch, t, sizeof t));
        tp_html_num(b, (double)x->calls, tp_fmt_count(x->calls, t, sizeof t));
        snprintf(t, sizeof t, "%.3g", (double)x->flops / 1e9);
        tp_html_num(b, (double)x->flops, t);
        tp_html_num(b, (double)x->host_ns, tp_fmt_ns(x->host_ns, t, sizeof t));
        tp_buf_puts(b, "</tr>\n");
    }
    tp_buf_puts(b, "</tbody></table>\n");
}

static void copies_and_waits(const struct tp_gpu *g, struct tp_buf *b)
{
    static const char *const h[] = {"copies", "calls", "asynchronous", "bytes", "host time"};
    static const char *const w[] = {"synchronise", "calls", "host waiting", "inside ops"};
    if (g->ncopies) {
        tp_buf_puts(b, "<table class=\"sortable\" id=\"gpu-copies\">");
        tp_html_head(b, h, sizeof h / sizeof h[0]);
        for (size_t i = 0; i < g->ncopies; i++) {
            const struct tp_gpu_copy *x = &g->copies[i];
            char t[32];
            tp_buf_puts(b, "<tr>");
            tp_html_text(b, x->direction ? x->direction : "?");
            tp_html_num(b, (double)x->calls, tp_fmt_count(x->calls, t, sizeof t));
            tp_html_num(b, (double)x->async_calls, tp_fmt_count(x->async_calls, t, sizeof t));
            tp_html_num(b, (double)x->bytes, tp_fmt_bytes(x->bytes, t, sizeof t));
            tp_html_num(b, (double)x->sync_ns, tp_fmt_ns(x->sync_ns, t, sizeof t));
            tp_buf_puts(b, "</tr>\n");
        }
        tp_buf_puts(b, "</tbody></table>\n");
    }
    if (g->nsyncs) {
        tp_buf_puts(b, "<table class=\"sortable\" id=\"gpu-syncs\">");
        tp_html_head(b, w, sizeof w / sizeof w[0]);
        for (size_t i = 0; i < g->nsyncs; i++) {
            const struct tp_gpu_sync *x = &g->syncs[i];
            char t[32];
            tp_buf_puts(b, "<tr>");
            tp_html_text(b, x->kind ? x->kind : "?");
            tp_html_num(b, (double)x->calls, tp_fmt_count(x->calls, t, sizeof t));
            tp_html_num(b, (double)x->ns, tp_fmt_ns(x->ns, t, sizeof t));
            tp_html_num(b, (double)x->in_ops_ns, tp_fmt_ns(x->in_ops_ns, t, sizeof t));
            tp_buf_puts(b, "</tr>\n");
        }
        tp_buf_puts(b, "</tbody></table>\n");
    }
}

void tp_html_gpu(const struct tp_report *r, struct tp_buf *b, int top)
{
    const struct tp_gpu *g = &r->gpu;
    if (!g->used)
        return;
    tp_buf_puts(b, "<h2>GPU (CUDA driver calls)</h2>\n<p>Times are the host's: a kernel's time on "
                   "the device is not measured, so cuBLAS's products have FLOPs but no "
                   "GFLOP/s.</p>\n");
    if (!g->ndevices)
        tp_buf_puts(b, "<p>No device memory was allocated through the driver.</p>\n");
    devices(g, b);
    sites(g, b, top);
    kernels(g, b, top);
    gemms(g, b, top);
    copies_and_waits(g, b);
}
