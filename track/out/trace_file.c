/* The Chrome Trace Event file: op calls as complete events ("ph":"X") per thread, the GFLOP/s
 * of each call (a track per op and shape) and the heap as counter tracks ("C"), process and
 * thread names ("M"), and per-op summaries of the calls that did not fit as instant events
 * ("i"). Opens in Perfetto, chrome://tracing and speedscope (which shows the calls and ignores
 * the rest).
 *
 * Written from what tracebuf.c recorded, within TPROF_TRACE_MAX bytes: room for what must come
 * last (the summaries, the closing object) is reserved first, thread names and the heap counter
 * get an eighth of the file each, and the op calls fill the rest until one does not fit; those
 * left out are summarised per op. A report that a signal hurries (track/runtime.h) stops drawing
 * calls at its deadline: the rest are summarised per op too, and the file stays whole. Names,
 * kinds and shapes come from the op table, which is why this file sits above ops.c and the
 * recorder does not. */
#include "track/out/trace_file.h"

#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/out/out.h"
#include "report/render/render.h"
#include "report/report.h"
#include "track/ops/ops.h"
#include "track/runtime.h"
#include "track/out/out.h"

#define MAX_THREADS TP_TRACE_MAX_THREADS

struct writer {
    struct tp_buf *b;
    long pid;
    double ratio;        /* ns per tick */
    int64_t base_rel_ns; /* tp_trace_base_ns - tp_start_ns */
    int first;
    int nops;
    char **prefix; /* per op: the start of its events, up to the tid */
    char **shape;  /* per op and shape slot: ',"shape":"..."' or NULL, made when first needed */
};

static int64_t ns_of(const struct writer *w, uint64_t ticks)
{
    double ns = (double)w->base_rel_ns + ((double)ticks - (double)tp_trace_base_ticks) * w->ratio;
    return ns > 0 ? (int64_t)(ns + 0.5) : 0;
}

static double us_of(const struct writer *w, uint64_t ticks)
{
    return (double)ns_of(w, ticks) / 1000.0;
}

static void sep(struct writer *w)
{
    tp_buf_puts(w->b, w->first ? "\n" : ",\n");
    w->first = 0;
}

/* Decimal digits without printf: a trace has a million events, and vsnprintf of doubles was
 * most of the time it took to write them. */
static void put_u64(struct tp_buf *b, uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    char out[24];
    for (int i = 0; i < n; i++)
        out[i] = d[n - 1 - i];
    tp_buf_put(b, out, (size_t)n);
}

/* v thousandths as "q.rrr": microseconds from nanoseconds, GFLOP/s to three places. */
static void put_milli(struct tp_buf *b, uint64_t v)
{
    char r[4] = {(char)('0' + v / 100 % 10), (char)('0' + v / 10 % 10), (char)('0' + v % 10), 0};
    put_u64(b, v / 1000);
    tp_buf_putc(b, '.');
    tp_buf_put(b, r, 3);
}

static char *dup_buf(struct tp_buf *t)
{
    char *p = tp_buf_ok(t) ? tp_strdup(tp_buf_str(t)) : NULL;
    tp_buf_free(t);
    return p;
}

/* The start of an op's complete events, up to the tid. The name is the op's alone: a viewer
 * that groups calls by name and args (speedscope) then shows one frame per op. */
static const char *event_prefix(struct writer *w, int op)
{
    char **cell = w->prefix ? &w->prefix[2 * op] : NULL;
    if (cell && *cell)
        return *cell;
    struct tp_buf t;
    tp_buf_init(&t);
    const char *name = tp_ops_name(op), *kind = tp_ops_kind(op);
    tp_buf_puts(&t, "{\"ph\":\"X\",\"name\":");
    tp_json_str(&t, name ? name : "?");
    tp_buf_puts(&t, ",\"cat\":");
    tp_json_str(&t, kind ? kind : "op");
    tp_buf_printf(&t, ",\"pid\":%ld,\"tid\":", w->pid);
    char *p = dup_buf(&t);
    if (cell && p)
        *cell = p;
    return p ? p : "{\"ph\":\"X\",\"name\":\"?\",\"tid\":";
}

/* The start of a GFLOP/s sample, up to the ts: a counter per op and shape, named
 * "cblas_sgemm m=64 n=32 k=16 NN row" (the op alone for a call with no shape), with the one
 * series "GFLOP/s". One series per counter: Catapult stacks the series of a counter, and rates
 * of different shapes do not add up. */
static const char *counter_prefix(struct writer *w, int op, int slot)
{
    char **cell =
        slot < 0 || slot >= TP_OPS_MAX_SHAPES
            ? (w->prefix ? &w->prefix[2 * op + 1] : NULL)
            : (w->shape ? &w->shape[(size_t)op * TP_OPS_MAX_SHAPES + (size_t)slot] : NULL);
    if (cell && *cell)
        return *cell;
    const char *name = tp_ops_name(op);
    char desc[96];
    struct tp_buf n, t;
    tp_buf_init(&n);
    tp_buf_puts(&n, name ? name : "?");
    if (slot >= 0 && slot < TP_OPS_MAX_SHAPES &&
        tp_ops_shape_desc(op, slot, desc, sizeof desc) == 0)
        tp_buf_printf(&n, " %s", desc);
    tp_buf_init(&t);
    tp_buf_puts(&t, "{\"ph\":\"C\",\"name\":");
    tp_json_str(&t, tp_buf_ok(&n) ? tp_buf_str(&n) : "?");
    tp_buf_free(&n);
    tp_buf_printf(&t, ",\"cat\":\"GFLOP/s\",\"pid\":%ld,\"ts\":", w->pid);
    char *p = dup_buf(&t);
    if (cell && p)
        *cell = p;
    return p ? p : "{\"ph\":\"C\",\"name\":\"?\",\"ts\":";
}

/* An op call as a complete event with no args: per-call figures in args would make every call
 * a frame of its own in speedscope, which keys frames by name and args. The call's GFLOP/s
 * goes to a counter track of the op and shape instead, which Perfetto and chrome://tracing draw
 * under the process. */
static void put_event(struct writer *w, const struct tp_trace_event *e)
{
    struct tp_buf *b = w->b;
    sep(w);
    tp_buf_puts(b, event_prefix(w, e->op));
    put_u64(b, (uint64_t)tp_trace_threads[e->thread].tid);
    double dur_ns = (double)e->dur * w->ratio;
    uint64_t t0 = (uint64_t)ns_of(w, e->t0);
    tp_buf_puts(b, ",\"ts\":");
    put_milli(b, t0);
    tp_buf_puts(b, ",\"dur\":");
    put_milli(b, (uint64_t)(dur_ns + 0.5));
    tp_buf_putc(b, '}');
    if (!e->flops)
        return;
    sep(w);
    tp_buf_puts(b, counter_prefix(w, e->op, e->shape));
    put_milli(b, t0);
    tp_buf_puts(b, ",\"args\":{\"GFLOP/s\":");
    put_milli(b, dur_ns > 0 ? (uint64_t)((double)e->flops / dur_ns * 1000.0 + 0.5) : 0);
    tp_buf_puts(b, "}}");
}

static void put_counter(struct writer *w, double ts_us, uint64_t live)
{
    sep(w);
    tp_buf_printf(w->b,
                  "{\"ph\":\"C\",\"name\":\"heap\",\"pid\":%ld,\"ts\":%.3f,"
                  "\"args\":{\"live_bytes\":%llu}}",
                  w->pid, ts_us, (unsigned long long)live);
}

/* Calls not drawn one by one, as one instant event per op and reason at the first of them,
 * scoped to the process: as complete events on a track of their own they overlapped, and
 * viewers drew them as a call stack that never happened. */
static void put_summary(struct writer *w, int op, const struct tp_trace_summary *s, const char *why)
{
    uint64_t first = atomic_load(&s->first), last = atomic_load(&s->last);
    const char *name = tp_ops_name(op);
    sep(w);
    tp_buf_puts(w->b, "{\"ph\":\"i\",\"s\":\"p\",\"name\":");
    struct tp_buf t;
    tp_buf_init(&t);
    tp_buf_printf(&t, "%s: calls not drawn (%s)", name ? name : "?", why);
    tp_json_str(w->b, tp_buf_ok(&t) ? tp_buf_str(&t) : "?");
    tp_buf_free(&t);
    tp_buf_printf(
        w->b, ",\"cat\":\"summary\",\"pid\":%ld,\"tid\":%ld,\"ts\":%.3f,\"args\":{\"op\":", w->pid,
        w->pid, us_of(w, first));
    tp_json_str(w->b, name ? name : "?");
    tp_buf_printf(w->b, ",\"calls\":%llu,\"total_us\":%.3f,\"last_end_us\":%.3f,\"why\":\"%s\"}}",
                  (unsigned long long)atomic_load(&s->calls),
                  (double)atomic_load(&s->ticks) * w->ratio / 1000.0,
                  us_of(w, last > first ? last : first), why);
}

/* What one summary event can take at most: fixed text, the name (escaped, each byte up to six
 * characters) and the numbers. */
static size_t summary_bound(int op)
{
    const char *name = tp_ops_name(op);
    return 360 + 12 * (name ? strlen(name) : 1);
}

static void put_meta(struct writer *w, const char *what, long tid, const char *name)
{
    sep(w);
    tp_buf_printf(w->b,
                  "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":", what,
                  w->pid, tid);
    tp_json_str(w->b, name);
    tp_buf_puts(w->b, "}}");
}

/* Ops that have a name (ids are dense from 0). */
static int count_ops(void)
{
    int nops = 0;
    while (nops < tp_trace_nsummary && tp_ops_name(nops))
        nops++;
    return nops;
}

/* Calls past the size budget are summarised at writing, apart from those past the cap: they
 * start from what the recorder summarised for lack of room. */
static struct tp_trace_summary *past_max_new(int nops)
{
    struct tp_trace_summary *past_max = tp_calloc(nops ? (size_t)nops : 1, sizeof *past_max);
    for (int i = 0; past_max && i < nops; i++) {
        struct tp_trace_summary *d = &past_max[i], *s0 = &tp_trace_past_room[i];
        atomic_store(&d->calls, atomic_load(&s0->calls));
        atomic_store(&d->ticks, atomic_load(&s0->ticks));
        atomic_store(&d->first, atomic_load(&s0->first));
        atomic_store(&d->last, atomic_load(&s0->last));
    }
    return past_max;
}

/* Room kept for what comes after the events: the closing object, and for every op that has
 * calls, a summary past the cap and one past the budget or the deadline (whichever stops the
 * drawing first takes every call after it). */
static size_t tail_reserve(int nops)
{
    char *has_calls = tp_calloc(nops ? (size_t)nops : 1, 1);
    size_t reserve = 1024;
    if (!has_calls) {
        for (int i = 0; i < nops; i++)
            reserve += 2 * summary_bound(i);
        return reserve;
    }
    for (struct tp_trace_chunk *c = atomic_load(&tp_trace_chunks); c; c = c->next) {
        uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);
        for (uint32_t i = 0; i < n; i++)
            if (c->ev[i].op >= 0 && c->ev[i].op < nops)
                has_calls[c->ev[i].op] = 1;
    }
    for (int i = 0; i < nops; i++)
        if (has_calls[i] || atomic_load(&tp_trace_past_cap[i].calls) ||
            atomic_load(&tp_trace_past_room[i].calls))
            reserve += 2 * summary_bound(i);
    tp_free(has_calls);
    return reserve;
}

/* The opening of the file and the process's name, in a buffer sized for the whole file: ~100
 * bytes per event (measured: 97 for the test loop's calls), within the budget. */
static void put_head(struct writer *w, const struct tp_report *r, uint64_t max)
{
    struct tp_buf *b = w->b;
    uint64_t want = 1u << 20;
    for (struct tp_trace_chunk *c = atomic_load(&tp_trace_chunks); c; c = c->next)
        want += 128ull * atomic_load_explicit(&c->n, memory_order_acquire);
    tp_buf_reserve(b, (size_t)(want < max ? want : max));
    b->oom = 0; /* a failed reservation is not an error: the buffer grows as it goes */
    tp_buf_printf(b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    char pname[300];
    /* The name alone: viewers add the pid and tid themselves. */
    snprintf(pname, sizeof pname, "%s", tp_base_name(r->program.exe, "program"));
    put_meta(w, "process_name", 0, pname);
}

/* Thread names: a budget of an eighth of the file. */
static void put_threads(struct writer *w, size_t reserve, uint64_t max)
{
    struct tp_buf *b = w->b;
    int nt = atomic_load(&tp_trace_nthreads);
    for (int i = 0; i < nt && b->len + 200 + reserve <= max && b->len + 200 <= max / 8; i++) {
        const struct tp_trace_thread *t = &tp_trace_threads[i];
        char name[64];
        if (i == MAX_THREADS - 1)
            snprintf(name, sizeof name, "threads %d and later", MAX_THREADS);
        else if (t->name[0])
            snprintf(name, sizeof name, "%s", t->name);
        else
            snprintf(name, sizeof name, "thread");
        put_meta(w, "thread_name", t->tid, name);
    }
}

/* The heap counter: another eighth, evenly thinned to fit; then the exact peak and exit.
 * Returns the samples written. */
static uint64_t put_heap(struct writer *w, const struct tp_report *r, size_t reserve, uint64_t max)
{
    struct tp_buf *b = w->b;
    uint32_t ns = atomic_load(&tp_trace_nsamples);
    size_t per_sample = 110;
    uint64_t left =
        max > b->len + reserve + 3 * per_sample ? max - b->len - reserve - 3 * per_sample : 0;
    uint64_t room = (max / 8 < left ? max / 8 : left) / per_sample;
    uint32_t step = room == 0 ? ns + 1 : (uint32_t)((ns + room - 1) / room);
    if (step == 0)
        step = 1;
    uint64_t written = 0;
    int peak_done = r->memory.peak_bytes == 0;
    for (uint32_t i = 0; i < ns; i += step) {
        const struct tp_trace_sample *s = &tp_trace_samples[i];
        if (!peak_done && s->ns > r->memory.peak_ns) {
            put_counter(w, (double)r->memory.peak_ns / 1000.0, r->memory.peak_bytes);
            peak_done = 1;
            written++;
        }
        put_counter(w, (double)s->ns / 1000.0, s->live);
        written++;
    }
    if (!peak_done) {
        put_counter(w, (double)r->memory.peak_ns / 1000.0, r->memory.peak_bytes);
        written++;
    }
    put_counter(w, (double)r->program.wall_ns / 1000.0, r->memory.live_at_exit_bytes);
    return written + 1;
}

/* Calls left out of a trace: those past the size budget (the one that does not fit is taken back
 * out, and it and all after it go here) and those past the deadline of a report that a signal
 * hurries (asked every CUT_EVERY calls drawn, so that the clock is rarely read and a cut trace
 * holds a whole number of them). */
#define CUT_EVERY 4096
struct left_out {
    struct tp_trace_summary *past_max, *past_deadline;
};

/* The op calls, while they fit and the report is not late. Returns the events written. */
static uint64_t put_calls(struct writer *w, size_t reserve, uint64_t max, struct left_out *left)
{
    struct tp_buf *b = w->b;
    uint64_t events = 0;
    int over = 0, late = 0;
    for (struct tp_trace_chunk *c = atomic_load(&tp_trace_chunks); c; c = c->next) {
        uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);
        for (uint32_t i = 0; i < n; i++) {
            const struct tp_trace_event *e = &c->ev[i];
            if (e->op < 0 || e->op >= w->nops)
                continue;
            if (!over && !late && events && events % CUT_EVERY == 0)
                late = tp_hurry_late();
            if (!over && !late) {
                size_t at = b->len;
                int first = w->first;
                put_event(w, e);
                if (tp_buf_ok(b) && b->len + reserve <= max) {
                    events++;
                    continue;
                }
                b->len = at;
                w->first = first;
                over = 1;
            }
            struct tp_trace_summary *s = late ? left->past_deadline : left->past_max;
            if (s)
                tp_trace_summarise(&s[e->op], e->t0, e->t0 + e->dur);
        }
    }
    return events;
}

static uint64_t put_all_calls(struct writer *w, size_t reserve, uint64_t max, struct left_out *left)
{
    int nops = w->nops;
    w->prefix = tp_calloc(2 * (nops ? (size_t)nops : 1), sizeof *w->prefix);
    w->shape = tp_calloc((nops ? (size_t)nops : 1) * TP_OPS_MAX_SHAPES, sizeof *w->shape);
    uint64_t events = put_calls(w, reserve, max, left);
    for (int i = 0; w->prefix && i < 2 * nops; i++)
        tp_free(w->prefix[i]);
    for (size_t i = 0; w->shape && i < (size_t)nops * TP_OPS_MAX_SHAPES; i++)
        tp_free(w->shape[i]);
    tp_free(w->prefix);
    tp_free(w->shape);
    return events;
}

/* The summaries of calls not drawn; their counts go to n[0] (past the cap), n[1] (past the
 * budget) and n[2] (past the deadline). */
static void put_summaries(struct writer *w, const struct left_out *left, uint64_t n[3])
{
    for (int i = 0; i < w->nops; i++) {
        uint64_t a = atomic_load(&tp_trace_past_cap[i].calls),
                 m = left->past_max ? atomic_load(&left->past_max[i].calls) : 0,
                 d = left->past_deadline ? atomic_load(&left->past_deadline[i].calls) : 0;
        if (a)
            put_summary(w, i, &tp_trace_past_cap[i], "past TPROF_TRACE_CAP");
        if (m)
            put_summary(w, i, &left->past_max[i], "past TPROF_TRACE_MAX");
        if (d)
            put_summary(w, i, &left->past_deadline[i], "past the report's deadline");
        n[0] += a;
        n[1] += m;
        n[2] += d;
    }
}

void tp_trace_render(struct tp_report *r, struct tp_buf *b)
{
    struct tp_outputs *o = &r->outputs;
    const uint64_t max = tp_cfg.trace_max;
    int nops = count_ops();
    struct writer w = {b,
                       (long)r->program.pid,
                       (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30),
                       (int64_t)tp_trace_base_ns - (int64_t)tp_start_ns,
                       1,
                       nops,
                       NULL,
                       NULL};
    struct left_out left = {past_max_new(nops),
                            tp_calloc(nops ? (size_t)nops : 1, sizeof(struct tp_trace_summary))};
    size_t reserve = tail_reserve(nops);
    put_head(&w, r, max);
    put_threads(&w, reserve, max);
    uint64_t written_samples = put_heap(&w, r, reserve, max);
    uint64_t events = put_all_calls(&w, reserve, max, &left);
    uint64_t n[3] = {0, 0, 0};
    put_summaries(&w, &left, n);
    tp_free(left.past_max);
    tp_free(left.past_deadline);

    tp_buf_printf(b,
                  "\n],\"otherData\":{\"tprof_version\":\"%s\",\"op_calls\":%llu,"
                  "\"events\":%llu,\"summarised_past_cap\":%llu,\"summarised_past_max\":%llu,"
                  "\"summarised_past_deadline\":%llu,\"trace_cap\":%llu,\"trace_max\":%llu,"
                  "\"heap_samples\":%llu}}\n",
                  TPROF_VERSION, (unsigned long long)atomic_load(&tp_trace_recorded),
                  (unsigned long long)events, (unsigned long long)n[0], (unsigned long long)n[1],
                  (unsigned long long)n[2], (unsigned long long)tp_cfg.trace_cap,
                  (unsigned long long)max, (unsigned long long)written_samples);
    o->trace_calls = atomic_load(&tp_trace_recorded);
    o->trace_events = events;
    o->trace_past_cap = n[0];
    o->trace_past_max = n[1];
    o->trace_past_deadline = n[2];
    o->trace_heap_samples = written_samples;
    o->trace_bytes = b->len;
}
