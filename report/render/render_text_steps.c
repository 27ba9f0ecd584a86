/* The text report's STEPS section: how many steps, what the CPUs did while they ran, their
 * latency. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/render/render_text.h"
#include "report/units.h"

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0;
}

/* What the CPUs did while the steps ran: the wait for a CPU stretches every step, and CPU time
 * over wall time says how many CPUs the steps kept busy. The process's figure is counted at the
 * kernel's ticks while tprof samples: for steps under TP_STEP_TICKS_NS on average it is marked
 * as an estimate. Reports from before these figures have no wall time: no line. */
#define TP_STEP_TICKS_NS 50000000ull
static void steps_cpu(struct tp_text_ctx *c, const struct tp_steps *s)
{
    if (!s->wall_ns)
        return;
    char wall[32], cpu[32], t[32], q[32], tp[32], qp[32], line[320];
    tp_fmt_ns(s->wall_ns, wall, sizeof wall);
    tp_fmt_ns(s->cpu_ns, cpu, sizeof cpu);
    int n = snprintf(line, sizeof line, "the recorded steps took %s", wall);
    if (s->thread_cpu_ns >= 0 && n > 0 && (size_t)n < sizeof line) {
        tp_fmt_ns((uint64_t)s->thread_cpu_ns, t, sizeof t);
        tp_fmt_pct(frac((uint64_t)s->thread_cpu_ns, s->wall_ns), 8, tp, sizeof tp);
        n += snprintf(line + n, sizeof line - (size_t)n,
                      "; the thread running them was on a CPU %s (%s)", t, tp);
    }
    if (s->thread_cpu_ns >= 0 && s->runq_ns >= 0 && n > 0 && (size_t)n < sizeof line) {
        tp_fmt_ns((uint64_t)s->runq_ns, q, sizeof q);
        tp_fmt_pct(frac((uint64_t)s->runq_ns, s->wall_ns), 8, qp, sizeof qp);
        n += snprintf(line + n, sizeof line - (size_t)n, " and waited %s for one (%s)", q, qp);
    }
    int est = s->count == 0 || s->wall_ns / s->count < TP_STEP_TICKS_NS;
    if (n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n,
                 "; all the process's threads were on a CPU %s%s (%.1f CPUs on average)",
                 est ? "~" : "", cpu, (double)s->cpu_ns / (double)s->wall_ns);
    tp_text_say(c, "%s", line);
}

/* The short report's one line: how many steps of what, their median and p95 latency. */
static void short_steps(struct tp_text_ctx *c, const struct tp_steps *s)
{
    const char *u = c->r->memory.lifetime_unit;
    char p50[32], p95[32], line[600];
    int n = snprintf(line, sizeof line, "%llu of %s%s", (unsigned long long)s->count,
                     s->name ? s->name : "?",
                     u && !strcmp(u, "ggml_graph") ? " (ggml graph evaluations)" : "");
    if (s->latency.n && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ": latency p50 %s, p95 %s (warm-up left out)",
                 tp_fmt_ns(s->latency.p50, p50, sizeof p50),
                 tp_fmt_ns(s->latency.p95, p95, sizeof p95));
    tp_buf_putc(c->b, '\n');
    tp_text_wrap(c, "STEPS: ", line, 2);
}

void tp_text_steps(struct tp_text_ctx *c)
{
    const struct tp_steps *s = &c->r->steps;
    if (s->count == 0)
        return;
    char win[96] = "", lo[32], hi[32];
    if (!c->full) {
        short_steps(c, s);
        return;
    }
    tp_text_heading(c, "STEPS");
    if (s->window_first >= 0)
        snprintf(win, sizeof win, " (steps %lld to %lld of the run)", (long long)s->window_first,
                 (long long)s->window_last);
    const char *u = c->r->memory.lifetime_unit;
    int ggml = u && !strcmp(u, "ggml_graph");
    tp_text_say(c, "%llu step%s of %s%s%s, %llu of them warm-up, left out of the latency",
                (unsigned long long)s->count, s->count == 1 ? "" : "s", s->name ? s->name : "?",
                ggml ? " (an evaluation of a ggml graph each; TPROF_STEP names another)" : "", win,
                (unsigned long long)s->warmup);
    steps_cpu(c, s);
    if (!s->latency.n)
        return;
    tp_text_latency_head(c, "");
    tp_text_latency_row(c, "latency per step", s->warmup, &s->latency);
    tp_fmt_ns(tp_text_ns_of(s->latency.p50_ci_lo), lo, sizeof lo);
    tp_fmt_ns(tp_text_ns_of(s->latency.p50_ci_hi), hi, sizeof hi);
    double per_s = s->latency.mean > 0 ? 1e9 / s->latency.mean : 0;
    if (isfinite(per_s) && per_s > 0) {
        char rate[32];
        tp_fmt_num(per_s, per_s < 9.995 ? 2 : per_s < 99.95 ? 1 : 0, 9, rate, sizeof rate);
        tp_text_say(
            c, "median step latency: 95%% confidence interval %s to %s; %s steps/s at the mean", lo,
            hi, rate);
    } else {
        tp_text_say(c, "median step latency: 95%% confidence interval %s to %s", lo, hi);
    }
}
