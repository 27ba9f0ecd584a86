/* The text report's GPU section (r->gpu, track/gpu/gpu.c): per device its peak memory and what
 * is still allocated at exit, the call sites holding the peak, copies by direction, kernel
 * launches, and the host's time waiting for the device in synchronise calls. Only for a program
 * that made CUDA driver calls. The short report keeps the device lines, the wait and the
 * launches; the full one adds the call sites, every kernel and the memsets. */
#include <stdio.h>
#include <string.h>

#include "report/render/render_text.h"
#include "report/units.h"

/* A device allocation's stack on one line, from the frame that called the driver to main. */
static void stack_line(const struct tp_gpu_site *s, char *out, size_t n, size_t room)
{
    struct tp_buf t;
    tp_buf_init(&t);
    for (size_t i = 0; i < s->nframes; i++) {
        char fr[600];
        tp_fmt_frame(&s->frames[i], fr, sizeof fr);
        tp_buf_printf(&t, "%s%s", i ? " < " : "", fr);
        if (s->frames[i].function && !strcmp(s->frames[i].function, "main"))
            break;
    }
    tp_fmt_fit(t.len ? tp_buf_str(&t) : "(no stack)", room, out, n);
    tp_buf_free(&t);
}

static void devices(struct tp_text_ctx *c, const struct tp_gpu *g)
{
    for (size_t i = 0; i < g->ndevices; i++) {
        const struct tp_gpu_device *d = &g->devices[i];
        char peak[32], at[32], left[32], line[600];
        tp_fmt_bytes(d->peak_bytes, peak, sizeof peak);
        tp_fmt_ns(d->peak_ns, at, sizeof at);
        tp_fmt_bytes(d->live_at_exit_bytes, left, sizeof left);
        snprintf(line, sizeof line,
                 "peak %s at %s into the run%s%s; %s in %llu allocation%s still allocated at "
                 "exit (of %llu made)",
                 peak, at, d->peak_op ? ", inside " : "", d->peak_op ? d->peak_op : "", left,
                 (unsigned long long)d->live_at_exit_allocs, d->live_at_exit_allocs == 1 ? "" : "s",
                 (unsigned long long)d->allocs);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "device %lld: ", (long long)d->device);
        tp_text_wrap(c, prefix, line, 2);
    }
}

static void sites(struct tp_text_ctx *c, const struct tp_gpu *g)
{
    size_t shown = 0, most = c->full ? (size_t)c->top : 3;
    for (size_t i = 0; i < g->nsites && shown < most; i++) {
        const struct tp_gpu_site *s = &g->sites[i];
        if (!s->live_at_peak_bytes)
            continue;
        char b[32], st[1200], head[96];
        tp_fmt_bytes(s->live_at_peak_bytes, b, sizeof b);
        snprintf(head, sizeof head, "  %s on device %lld (%s): ", b, (long long)s->device,
                 s->kind ? s->kind : "?");
        size_t used = strlen(head), room = (size_t)c->width > used + 20 ? c->width - used : 20;
        stack_line(s, st, sizeof st, room);
        tp_text_say(c, "%s%s", head, st);
        shown++;
    }
}

static const char *direction_words(const char *d)
{
    return !strcmp(d, "htod")   ? "to the device"
           : !strcmp(d, "dtoh") ? "to the host"
           : !strcmp(d, "dtod") ? "device to device"
                                : "host to host";
}

static void copies(struct tp_text_ctx *c, const struct tp_gpu *g)
{
    if (!g->ncopies)
        return;
    struct tp_buf t;
    tp_buf_init(&t);
    uint64_t sync_ns = 0;
    for (size_t i = 0; i < g->ncopies; i++) {
        const struct tp_gpu_copy *x = &g->copies[i];
        char b[32];
        tp_fmt_bytes(x->bytes, b, sizeof b);
        tp_buf_printf(&t, "%s%s %s in %llu call%s", i ? ", " : "", direction_words(x->direction), b,
                      (unsigned long long)x->calls, x->calls == 1 ? "" : "s");
        if (x->async_calls)
            tp_buf_printf(&t, " (%llu asynchronous)", (unsigned long long)x->async_calls);
        sync_ns += x->sync_ns;
    }
    char ns[32];
    tp_fmt_ns(sync_ns, ns, sizeof ns);
    tp_buf_printf(&t, "; the synchronous ones took %s of the host", ns);
    tp_text_wrap(c, "copies: ", tp_buf_str(&t), 2);
    tp_buf_free(&t);
}

static void kernels(struct tp_text_ctx *c, const struct tp_gpu *g)
{
    if (!g->nkernels)
        return;
    uint64_t all = 0;
    for (size_t i = 0; i < g->nkernels; i++)
        all += g->kernels[i].launches;
    struct tp_buf t;
    tp_buf_init(&t);
    tp_buf_printf(&t, "%llu launch%s of %zu kernel%s", (unsigned long long)all,
                  all == 1 ? "" : "es", g->nkernels, g->nkernels == 1 ? "" : "s");
    size_t most = c->full ? (size_t)c->top : 3;
    for (size_t i = 0; i < g->nkernels && i < most; i++) {
        const struct tp_gpu_kernel *k = &g->kernels[i];
        tp_buf_printf(&t, "%s %s %llu (grid %llux%llux%llu, block %llux%llux%llu", i ? "," : ":",
                      k->name ? k->name : "(unnamed)", (unsigned long long)k->launches,
                      (unsigned long long)k->grid_x, (unsigned long long)k->grid_y,
                      (unsigned long long)k->grid_z, (unsigned long long)k->block_x,
                      (unsigned long long)k->block_y, (unsigned long long)k->block_z);
        if (k->shared_bytes)
            tp_buf_printf(&t, ", %llu B shared", (unsigned long long)k->shared_bytes);
        if (k->op)
            tp_buf_printf(&t, ", from %s", k->op);
        tp_buf_putc(&t, ')');
    }
    if (g->nkernels > most)
        tp_buf_printf(&t, ", %zu more in the JSON", g->nkernels - most);
    tp_buf_puts(&t, "; their time on the device is not measured (the host's calls only)");
    tp_text_wrap(c, "kernels: ", tp_buf_str(&t), 2);
    tp_buf_free(&t);
}

/* "cuBLAS: cublasSgemm_v2 512x512x512 NN f32 x10 (2.68 GFLOP), ...; 2.73 GFLOP in all, ..." */
static void gemms(struct tp_text_ctx *c, const struct tp_gpu *g)
{
    if (!g->ngemms)
        return;
    struct tp_buf t;
    tp_buf_init(&t);
    uint64_t flops = 0, ns = 0;
    size_t most = c->full ? (size_t)c->top : 3;
    for (size_t i = 0; i < g->ngemms; i++) {
        const struct tp_gpu_gemm *x = &g->gemms[i];
        flops += x->flops;
        ns += x->host_ns;
        if (i >= most)
            continue;
        char f[32];
        snprintf(f, sizeof f, "%.3g", (double)x->flops / 1e9);
        tp_buf_printf(&t, "%s%s %llux%llux%llu %s%s %s", i ? ", " : "", x->function,
                      (unsigned long long)x->m, (unsigned long long)x->n, (unsigned long long)x->k,
                      x->transa ? x->transa : "?", x->transb ? x->transb : "?",
                      x->dtype ? x->dtype : "?");
        if (x->batch > 1)
            tp_buf_printf(&t, " batch %llu", (unsigned long long)x->batch);
        tp_buf_printf(&t, " x%llu (%s GFLOP)", (unsigned long long)x->calls, f);
    }
    if (g->ngemms > most)
        tp_buf_printf(&t, ", %zu more shape%s in the JSON", g->ngemms - most,
                      g->ngemms - most == 1 ? "" : "s");
    char f[32], h[32];
    snprintf(f, sizeof f, "%.3g", (double)flops / 1e9);
    tp_fmt_ns(ns, h, sizeof h);
    tp_buf_printf(&t,
                  "; %s GFLOP in all, launched in %s of the host; their time on the device is not "
                  "measured, so no GFLOP/s",
                  f, h);
    tp_text_wrap(c, "cuBLAS: ", tp_buf_str(&t), 2);
    tp_buf_free(&t);
}

static void waits(struct tp_text_ctx *c, const struct tp_gpu *g)
{
    uint64_t calls = 0, ns = 0, in_ops = 0;
    struct tp_buf kinds;
    tp_buf_init(&kinds);
    for (size_t i = 0; i < g->nsyncs; i++) {
        calls += g->syncs[i].calls;
        ns += g->syncs[i].ns;
        in_ops += g->syncs[i].in_ops_ns;
        tp_buf_printf(&kinds, "%s%s", i ? ", " : "", g->syncs[i].kind);
    }
    if (!calls) {
        tp_buf_free(&kinds);
        return;
    }
    char t[32], o[32];
    tp_fmt_ns(ns, t, sizeof t);
    tp_fmt_ns(in_ops, o, sizeof o);
    double share = c->r->program.wall_ns ? (double)ns / (double)c->r->program.wall_ns : 0;
    char line[600];
    snprintf(line, sizeof line,
             "the host waited %s for the device (%.1f%% of the run) in %llu synchronise call%s "
             "(%s); %s of it inside ops",
             t, 100 * share, (unsigned long long)calls, calls == 1 ? "" : "s", tp_buf_str(&kinds),
             o);
    tp_buf_free(&kinds);
    tp_text_wrap(c, "waiting: ", line, 2);
}

void tp_text_gpu(struct tp_text_ctx *c)
{
    const struct tp_gpu *g = &c->r->gpu;
    if (!g->used)
        return;
    tp_text_heading(c, "GPU (CUDA driver calls)");
    if (!g->ndevices)
        tp_text_say(c, "no device memory was allocated through the driver");
    devices(c, g);
    sites(c, g);
    copies(c, g);
    kernels(c, g);
    gemms(c, g);
    waits(c, g);
    if (c->full && g->memset_calls) {
        char b[32];
        tp_fmt_bytes(g->memset_bytes, b, sizeof b);
        tp_text_say(c, "memsets: %s in %llu call%s", b, (unsigned long long)g->memset_calls,
                    g->memset_calls == 1 ? "" : "s");
    }
    if (g->unknown_frees)
        tp_text_say(c, "note: %llu device frees of memory tprof did not see allocated",
                    (unsigned long long)g->unknown_frees);
    if (g->gemms_untracked)
        tp_text_say(c,
                    "note: %llu cuBLAS products of shapes past the first 512 are not in the "
                    "cuBLAS line",
                    (unsigned long long)g->gemms_untracked);
    if (g->untracked_allocs)
        tp_text_say(c,
                    "note: %llu device allocations were not kept (the tables were full): the "
                    "peaks leave them out",
                    (unsigned long long)g->untracked_allocs);
}
