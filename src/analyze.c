/* From raw figures to answers: roofline per op, the verdict, Amdahl projections (DESIGN §5).
 *
 * Shares are of wall time. Self time is what an op would give back if it took no time, so Amdahl
 * uses self shares; ops on different threads can overlap, which a note says when their self
 * times add up to more than the wall time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "units.h"

static char *dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static double ratio(double a, double b)
{
    return b > 0 && isfinite(a / b) ? a / b : 0;
}

void tp_op_roofline(struct tp_op *o, double peak_gflops, double peak_gbps, uint64_t wall_ns)
{
    o->gflops = ratio((double)o->flops, (double)o->total_ns); /* FLOP/ns == GFLOP/s */
    o->intensity = ratio((double)o->flops, (double)o->bytes);
    o->share = ratio((double)o->total_ns, (double)wall_ns);
    o->self_share = ratio((double)o->self_ns, (double)wall_ns);
    free(o->bound);
    o->attainable_gflops = 0;
    o->efficiency = 0;
    if (o->flops == 0 || o->bytes == 0 || peak_gflops <= 0 || peak_gbps <= 0) {
        o->bound = strdup("unknown");
        return;
    }
    double ridge = peak_gflops / peak_gbps;
    double mem_roof = o->intensity * peak_gbps;
    o->attainable_gflops = mem_roof < peak_gflops ? mem_roof : peak_gflops;
    o->bound = strdup(o->intensity < ridge ? "memory" : "compute");
    o->efficiency = ratio(o->gflops, o->attainable_gflops);
}

double tp_amdahl(double share, double factor)
{
    if (share <= 0)
        return 1;
    if (share > 0.999999)
        share = 0.999999;
    if (!isfinite(factor))
        return 1 / (1 - share);
    return 1 / ((1 - share) + share / factor);
}

static int by_self(const void *a, const void *b)
{
    const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static void clear_verdict(struct tp_verdict *v)
{
    free(v->op);
    free(v->bound);
    free(v->text);
    for (size_t i = 0; i < v->namdahl; i++)
        free(v->amdahl[i].op);
    free(v->amdahl);
    memset(v, 0, sizeof *v);
}

/* The top site by live-at-peak, as "function (file:line)" or "module+0xoff". */
static void site_name(const struct tp_site *s, char *out, size_t n)
{
    if (!s || s->nframes == 0) {
        snprintf(out, n, "an unknown site");
        return;
    }
    /* An allocation wrapper (xmalloc, checked_alloc...) says little: name its caller too. */
    const char *f0 = s->frames[0].function;
    if (f0 && strcasestr(f0, "alloc") && s->nframes > 1) {
        char caller[200];
        tp_fmt_frame(&s->frames[1], caller, sizeof caller);
        snprintf(out, n, "%.200s via %.50s", caller, f0);
        return;
    }
    tp_fmt_frame(&s->frames[0], out, n);
}

static void memory_story(const struct tp_report *r, struct tp_buf *t)
{
    const struct tp_memory *m = &r->memory;
    char a[32], b[32], where[256];
    if (m->peak_bytes == 0)
        return;
    tp_fmt_bytes(m->peak_bytes, a, sizeof a);
    const struct tp_site *top = NULL;
    for (size_t i = 0; i < m->nsites; i++)
        if (!top || m->sites[i].live_at_peak_bytes > top->live_at_peak_bytes)
            top = &m->sites[i];
    site_name(top, where, sizeof where);
    tp_buf_printf(t, " The heap peaks at %s", a);
    if (m->peak_op)
        tp_buf_printf(t, " inside %s", m->peak_op);
    if (top && top->live_at_peak_bytes) {
        tp_fmt_bytes(top->live_at_peak_bytes, b, sizeof b);
        tp_buf_printf(t, "; %s of it from %s", b, where);
    }
    tp_buf_putc(t, '.');
    if (m->persistent_bytes || m->transient_bytes) {
        tp_fmt_bytes(m->persistent_bytes, a, sizeof a);
        tp_fmt_bytes(m->transient_bytes, b, sizeof b);
        tp_buf_printf(t, " Of the peak, %s is persistent (allocated before the first op: "
                         "parameters, buffers) and %s transient (activations, workspaces).", a, b);
    }
    if (m->live_at_exit_bytes) {
        tp_fmt_bytes(m->live_at_exit_bytes, a, sizeof a);
        tp_buf_printf(t, " %s in %llu blocks is still allocated at exit.", a,
                      (unsigned long long)m->live_at_exit_allocs);
    }
}

void tp_analyze(struct tp_report *r)
{
    uint64_t wall = r->program.wall_ns;
    double pg = r->machine.peak_gflops, pb = r->machine.peak_gbps;
    uint64_t self_sum = 0;
    for (size_t i = 0; i < r->nops; i++) {
        tp_op_roofline(&r->ops[i], pg, pb, wall);
        self_sum += r->ops[i].self_ns;
    }

    struct tp_verdict *v = &r->verdict;
    clear_verdict(v);
    v->alloc_ns = r->memory.alloc_ns;
    v->outside_ops_ns = wall > self_sum ? wall - self_sum : 0;

    struct tp_op **order = calloc(r->nops ? r->nops : 1, sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < r->nops; i++)
        order[i] = &r->ops[i];
    qsort(order, r->nops, sizeof *order, by_self);

    size_t top = r->nops < 10 ? r->nops : 10;
    v->amdahl = calloc(top ? top : 1, sizeof *v->amdahl);
    for (size_t i = 0; v->amdahl && i < top; i++) {
        struct tp_amdahl *a = &v->amdahl[v->namdahl++];
        a->op = dup(order[i]->name);
        a->share = order[i]->self_share > 1 ? 1 : order[i]->self_share;
        a->speedup_2x = tp_amdahl(a->share, 2);
        a->speedup_max = tp_amdahl(a->share, INFINITY);
    }

    struct tp_buf t;
    tp_buf_init(&t);
    if (r->nops > 0 && order[0]->self_ns > 0) {
        const struct tp_op *d = order[0];
        v->op = dup(d->name);
        v->share = d->self_share;
        v->bound = dup(d->bound);
        v->efficiency = d->efficiency;
        tp_buf_printf(&t, "%s takes %.0f%% of the time", d->name, 100 * d->self_share);
        if (d->bound && strcmp(d->bound, "unknown") != 0)
            tp_buf_printf(&t, " and runs at %.0f%% of what this machine can do at its "
                              "arithmetic intensity (%s-bound)",
                          100 * d->efficiency, d->bound);
        else if (!d->flops)
            tp_buf_puts(&t, " (its FLOPs are unknown, so its bound is too)");
        tp_buf_printf(&t, "; a 2x faster %s makes the program %.2fx faster, an infinitely fast "
                          "one %.2fx.",
                      d->name, v->amdahl[0].speedup_2x, v->amdahl[0].speedup_max);
        if (self_sum > wall && wall > 0)
            tp_report_note(r, "ops ran on several threads at once: their self times add up to "
                              "more than the wall time, and shares of wall time overlap");
    } else {
        tp_buf_puts(&t, "No op was seen: this report covers the heap only.");
    }
    memory_story(r, &t);
    if (wall > 0 && r->memory.alloc_ns * 20 > wall) {
        char a[32];
        tp_fmt_ns(r->memory.alloc_ns, a, sizeof a);
        tp_buf_printf(&t, " The allocator itself takes %s (%.0f%% of the wall time).", a,
                      100.0 * (double)r->memory.alloc_ns / (double)wall);
    }
    v->text = tp_buf_ok(&t) ? strdup(tp_buf_str(&t)) : NULL;
    tp_buf_free(&t);
    free(order);
}
