/* Work or wait of each op (report/analyze/analyze.h).
 *
 * An op's time here is what its threads spent in it: working (work_ns: CPU time outside any wait,
 * CPU samples times their period, work_method "samples"; without samples, its time less its
 * blocked waits, "time_less_waits") or waiting (wait_ns: wait_blocked_ns, exact wall time in the
 * hooked waiting calls, whose names are wait_kinds, plus wait_spin_ns, CPU time spinning in an
 * OpenMP runtime from samples, wait_spin_method "samples"). cpu_ns is all the CPU time sampled in
 * it (cpu_method "samples"). Its threads are those that had it open and the workers of a pool
 * that ran for it while it ran. */
#include "report/analyze/analyze.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/out/out.h"
#include "report/units.h"

int tp_outside_spin_said(const struct tp_samples *s)
{
    return s->outside_spin && 100 * s->outside_spin >= s->outside_ops;
}

double tp_op_wait_share(const struct tp_op *o)
{
    double all = (double)o->wait_ns + (double)o->work_ns;
    return all > 0 ? (double)o->wait_ns / all : 0;
}

int tp_op_wait_estimated(const struct tp_op *o)
{
    return o->wait_spin_ns > 0 || (o->work_method && !strcmp(o->work_method, "samples"));
}

int tp_op_wait_rule(const struct tp_op *o)
{
    return o->wait_ns >= TP_WAIT_MIN_NS && tp_op_wait_share(o) >= TP_WAIT_SHARE;
}

/* "ggml_barrier: ~71.0% of the thread time while it ran (on its threads and on threads with no op
 * open) was waiting for other threads, not work (in pthread_barrier_wait: 210 ms; spinning
 * in the OpenMP runtime: ~150 ms). Fewer threads ... may be faster." An op whose wait is all
 * pthread_join is "waiting for its threads to end", with no advice; one whose wait is all in CUDA's
 * synchronise calls is waiting for the device, which fewer host threads would not speed up. */
/* The buffer's text, a copy the caller frees; NULL when memory ran out. */
static char *take(struct tp_buf *b)
{
    char *s = tp_buf_ok(b) ? strdup(tp_buf_str(b)) : NULL;
    tp_buf_free(b);
    return s;
}

/* 1 when every bit of o's waiting was blocked in calls of this one kind. */
static int all_in(const struct tp_op *o, const char *kind)
{
    return o->wait_blocked_ns && !o->wait_spin_ns && o->wait_kinds && !strcmp(o->wait_kinds, kind);
}

static char *sentence(const struct tp_op *o)
{
    char pct[32], t[32];
    struct tp_buf b;
    tp_buf_init(&b);
    tp_fmt_pct(tp_op_wait_share(o), 8, pct, sizeof pct);
    const char *name = o->name ? o->name : "?", *est = tp_op_wait_estimated(o) ? "~" : "";
    /* All of it in a CUDA synchronise call: the host waits for the device, which fewer host
     * threads would not speed up. */
    if (all_in(o, "cuda_synchronize")) {
        tp_fmt_ns(o->wait_blocked_ns, t, sizeof t);
        tp_buf_printf(&b,
                      "Waiting: %s: %s%s of the thread time while it ran was the host waiting for "
                      "the GPU, not work (in CUDA synchronise calls: %s): the device's work sets "
                      "its pace (the GPU section says what the device was given).",
                      name, est, pct, t);
        return take(&b);
    }
    /* All of it in pthread_join: the op joins threads that are ending (MPI_Finalize, a pool's
     * shutdown); fewer threads would not shorten that, so there is no thread-count advice. */
    if (all_in(o, "pthread_join")) {
        tp_fmt_ns(o->wait_blocked_ns, t, sizeof t);
        tp_buf_printf(&b,
                      "Waiting: %s: %s%s of the thread time while it ran (on its threads and on "
                      "threads with no op open) was waiting for its threads to end, not work (in "
                      "pthread_join: %s).",
                      name, est, pct, t);
        return take(&b);
    }
    tp_buf_printf(&b,
                  "Waiting: %s: %s%s of the thread time while it ran (on its threads and on "
                  "threads with no op open) was waiting for other threads, not work (",
                  name, est, pct);
    if (o->wait_blocked_ns) {
        tp_fmt_ns(o->wait_blocked_ns, t, sizeof t);
        tp_buf_puts(&b, "in ");
        if (o->wait_kinds && *o->wait_kinds) /* the JSON's list, a space after each comma */
            for (const char *k = o->wait_kinds; *k; k++)
                if (*k == ',')
                    tp_buf_puts(&b, ", ");
                else
                    tp_buf_putc(&b, *k);
        else
            tp_buf_puts(&b, "waiting calls");
        tp_buf_printf(&b, ": %s", t);
    }
    if (o->wait_spin_ns) {
        tp_fmt_ns(o->wait_spin_ns, t, sizeof t);
        tp_buf_printf(&b, "%sspinning in the OpenMP runtime: ~%s", o->wait_blocked_ns ? "; " : "",
                      t);
    }
    tp_buf_puts(&b, "). Fewer threads (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS or the program's own "
                    "thread count) may be faster.");
    return take(&b);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void first_of(char **d, const char *s)
{
    if (!*d && s)
        *d = strdup(s);
}

void tp_op_wait_add(struct tp_op *d, const struct tp_op *s)
{
    d->cpu_ns = sat_add(d->cpu_ns, s->cpu_ns);
    d->work_ns = sat_add(d->work_ns, s->work_ns);
    d->wait_ns = sat_add(d->wait_ns, s->wait_ns);
    d->wait_blocked_ns = sat_add(d->wait_blocked_ns, s->wait_blocked_ns);
    d->wait_spin_ns = sat_add(d->wait_spin_ns, s->wait_spin_ns);
    first_of(&d->cpu_method, s->cpu_method);
    first_of(&d->work_method, s->work_method);
    first_of(&d->wait_spin_method, s->wait_spin_method);
    first_of(&d->wait_kinds, s->wait_kinds);
}

void tp_wait_verdict(struct tp_report *r)
{
    struct tp_verdict *v = &r->verdict;
    const struct tp_op *best = NULL;
    free(v->wait_op);
    free(v->wait_text);
    v->wait_op = v->wait_text = NULL;
    for (size_t i = 0; i < r->nops; i++) {
        struct tp_op *o = &r->ops[i];
        o->wait_share = tp_op_wait_share(o);
        if (tp_op_wait_rule(o) && (!best || o->wait_ns > best->wait_ns))
            best = o;
    }
    if (!best)
        return;
    v->wait_op = best->name ? strdup(best->name) : NULL;
    v->wait_text = sentence(best);
}
