/* The text report's VERDICT section and the Amdahl table (report/render/render_text.h): the
 * analysis's sentences as they were made (report/analyze/), then the time outside every op and
 * in the allocator, tprof's own share, and where the samples outside every op landed. */
#include <stdio.h>
#include <string.h>

#include "common/names/names.h"
#include "report/analyze/analyze.h"
#include "report/render/render.h"
#include "report/render/render_text.h"
#include "report/units.h"

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0;
}

int tp_outside_samples_line(const struct tp_report *r, struct tp_buf *out)
{
    if (!r->noutside_ops)
        return 0;
    struct tp_buf b;
    tp_buf_init(&b);
    for (size_t i = 0; i < r->noutside_ops && i < 5; i++) {
        const struct tp_outside_fn *f = &r->outside_ops[i];
        char p[32];
        tp_fmt_pct(tp_advice_run_share(r, f), 8, p, sizeof p);
        tp_buf_printf(&b, "%s%s ~%s", i ? ", " : "", f->name ? f->name : "(no symbol)", p);
    }
    uint64_t all = r->samples.total ? r->samples.total : r->samples.outside_ops;
    /* libgomp's spin loops look like a hot function: they wait */
    if (tp_outside_spin_said(&r->samples))
        tp_buf_printf(&b,
                      "; of them %llu (~%.1f%% of the run's) spinning in an OpenMP runtime: "
                      "waiting for other threads, not work",
                      (unsigned long long)r->samples.outside_spin,
                      100.0 * (double)r->samples.outside_spin / (double)all);
    int ok = tp_buf_ok(&b);
    if (ok)
        tp_buf_printf(out,
                      "outside every op, by CPU samples (%llu of the run's %llu at %llu Hz), as "
                      "shares of the run's samples: %s",
                      (unsigned long long)r->samples.outside_ops, (unsigned long long)all,
                      (unsigned long long)r->samples.hz, tp_buf_str(&b));
    tp_buf_free(&b);
    return ok;
}

/* Where the CPU-time samples taken outside every op landed, by function. */
static void outside_samples(struct tp_text_ctx *c)
{
    struct tp_buf b;
    tp_buf_init(&b);
    if (tp_outside_samples_line(c->r, &b))
        tp_text_wrap(c, "", tp_buf_str(&b), 2);
    tp_buf_free(&b);
}

/* The short report's CPU verdict: its first sentence (what the process got of its CPUs), the
 * why and what gives it back left to the full report, so that a loaded machine does not push
 * the verdict on the ops off the screen. */
static void short_cpu(struct tp_text_ctx *c, const char *text)
{
    const char *end = strstr(text, ". ");
    struct tp_buf b;
    tp_buf_init(&b);
    tp_buf_put(&b, text, end ? (size_t)(end - text) : strlen(text));
    tp_buf_puts(&b, end ? " (why, and what gives it back: the full report)." : "");
    tp_text_wrap(c, "", tp_buf_str(&b), 0);
    tp_buf_free(&b);
}

void tp_text_verdict(struct tp_text_ctx *c)
{
    const struct tp_report *r = c->r;
    const struct tp_verdict *v = &r->verdict;
    char t1[32], t2[32], p1[32], p2[32];
    tp_text_heading(c, "VERDICT");
    /* first: when the CPUs were missing, what follows about the ops reads differently */
    if (v->cpu_text && c->full)
        tp_text_wrap(c, "", v->cpu_text, 0);
    else if (v->cpu_text)
        short_cpu(c, v->cpu_text);
    if (v->text)
        tp_text_wrap(c, "", v->text, 0);
    if (v->wait_text)
        tp_text_wrap(c, "", v->wait_text, 0);
    tp_fmt_ns(v->alloc_ns, t2, sizeof t2);
    tp_fmt_pct(frac(v->alloc_ns, c->program_ns), 8, p2, sizeof p2);
    if (r->nops && v->threads_wall_ns && r->nthreads > 1) {
        /* summed over threads: its share is of their time, counted as the line says */
        int est;
        const char *basis = tp_outside_basis(r, &est);
        uint64_t theirs = basis ? v->threads_time_ns : v->threads_wall_ns;
        tp_fmt_ns(v->outside_ops_ns, t1, sizeof t1);
        tp_fmt_pct(frac(v->outside_ops_ns, theirs), 8, p1, sizeof p1);
        tp_text_say(c,
                    "time outside every op, summed over %zu threads%s%s%s: %s%s (%s of theirs); "
                    "inside the allocator: ~%s (%s)",
                    r->nthreads, basis ? " (" : "", basis ? basis : "", basis ? ")" : "",
                    est ? "~" : "", t1, p1, t2, p2);
    } else if (r->nops) {
        tp_fmt_ns(v->outside_ops_ns, t1, sizeof t1);
        tp_fmt_pct(frac(v->outside_ops_ns, c->program_ns), 8, p1, sizeof p1);
        tp_text_say(c, "time outside every op: %s (%s); inside the allocator: ~%s (%s)", t1, p1, t2,
                    p2);
    } else {
        tp_text_say(c, "time inside the allocator: ~%s (%s)", t2, p2);
    }
    if (tp_hooks_worth_saying(r->program.hooks_ns, c->program_ns)) {
        tp_fmt_ns(r->program.hooks_ns, t1, sizeof t1);
        tp_fmt_pct(frac(r->program.hooks_ns, c->program_ns), 8, p1, sizeof p1);
        tp_text_say(c,
                    "tprof's own hooks inside the ops: ~%s (%s), taken out of the ops' times and "
                    "out of the time outside every op",
                    t1, p1);
    }
    if (r->samples.in_tprof && r->samples.total && c->full)
        tp_text_say(c, "tprof's own code: %llu of the %llu CPU samples (~%.1f%% of the CPU time)",
                    (unsigned long long)r->samples.in_tprof, (unsigned long long)r->samples.total,
                    100.0 * (double)r->samples.in_tprof / (double)r->samples.total);
    if (c->full) /* the short report leaves the samples' list to the full one */
        outside_samples(c);
}

void tp_text_amdahl(struct tp_text_ctx *c)
{
    const struct tp_verdict *v = &c->r->verdict;
    if (v->namdahl == 0)
        return;
    char h[4][128];
    size_t nw = tp_text_col(c, 44);
    tp_buf_putc(c->b, '\n');
    tp_buf_printf(c->b, "%s %s %s %s\n", tp_fmt_cell("Amdahl: if this op ran...", nw, 0, h[0], 128),
                  tp_text_right(h[1], 128, "wall%", 8), tp_text_right(h[2], 128, "2x faster", 16),
                  tp_text_right(h[3], 128, "in no time", 16));
    size_t n = v->namdahl < (size_t)c->top ? v->namdahl : (size_t)c->top;
    for (size_t i = 0; i < n; i++) {
        const struct tp_amdahl *a = &v->amdahl[i];
        char pct[32], s2[32], sm[32], num[32];
        tp_fmt_pct(a->share, 8, pct, sizeof pct);
        snprintf(s2, sizeof s2, "%sx", tp_fmt_num(a->speedup_2x, 2, 15, num, sizeof num));
        if (a->speedup_max > 0)
            snprintf(sm, sizeof sm, "%sx", tp_fmt_num(a->speedup_max, 2, 15, num, sizeof num));
        else
            snprintf(sm, sizeof sm, "no bound"); /* the op ran all the time */
        tp_buf_printf(c->b, "%s %s %s %s\n", tp_text_name(c, tp_name_short(a->op), nw, h[0], 128),
                      tp_text_right(h[1], 128, pct, 8), tp_text_right(h[2], 128, s2, 16),
                      tp_text_right(h[3], 128, sm, 16));
    }
}
