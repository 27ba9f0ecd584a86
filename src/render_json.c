/* The JSON report: exactly the shape of docs/json-shape.md (schema 1). Hand-written because the
 * writer runs inside the profiled process at exit, where a JSON library would be one more thing
 * to load; the CLI reads it back with json-c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "units.h"

/* JSON string: quotes, backslash, control characters and DEL escaped; each byte that is not
 * part of valid UTF-8 becomes U+FFFD, so that the document always parses, strictly. */
static void jstr(struct tp_buf *b, const char *s)
{
    if (!s) {
        tp_buf_puts(b, "null");
        return;
    }
    tp_buf_putc(b, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            tp_buf_putc(b, '\\');
            tp_buf_putc(b, (char)c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': tp_buf_puts(b, "\\n"); break;
            case '\t': tp_buf_puts(b, "\\t"); break;
            case '\r': tp_buf_puts(b, "\\r"); break;
            case '\b': tp_buf_puts(b, "\\b"); break;
            case '\f': tp_buf_puts(b, "\\f"); break;
            default: tp_buf_printf(b, "\\u%04x", c); break;
            }
            p++;
        } else if (c < 0x80) {
            tp_buf_putc(b, (char)c);
            p++;
        } else {
            int len = tp_utf8_len(p);
            if (len) {
                tp_buf_put(b, (const char *)p, (size_t)len);
                p += len;
            } else {
                tp_buf_puts(b, "\\ufffd");
                p++;
            }
        }
    }
    tp_buf_putc(b, '"');
}

void tp_json_str(struct tp_buf *b, const char *s)
{
    jstr(b, s);
}

/* Doubles: never NaN or Inf (not JSON: written as 0), in the fewest digits that read back as the
 * same double (0.6, not 0.59999999999999998), and with a decimal point whatever LC_NUMERIC the
 * profiled program chose. */
static void jdbl(struct tp_buf *b, double v)
{
    if (!isfinite(v))
        v = 0;
    char tmp[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        /* strtod reads the same locale's decimal separator that snprintf wrote. */
        if (strtod(tmp, NULL) == v)
            break;
    }
    for (char *c = tmp; *c; c++)
        if (*c == ',')
            *c = '.';
    tp_buf_puts(b, tmp);
}

static void ju64(struct tp_buf *b, uint64_t v)
{
    tp_buf_printf(b, "%llu", (unsigned long long)v);
}

static void ji64(struct tp_buf *b, int64_t v)
{
    tp_buf_printf(b, "%lld", (long long)v);
}

static void jchar(struct tp_buf *b, char c)
{
    char s[2] = {c, 0};
    jstr(b, c ? s : NULL);
}

/* Key helpers: a comma before every key but the first of an object. */
struct obj {
    struct tp_buf *b;
    int n;
};

static void key(struct obj *o, const char *k)
{
    if (o->n++)
        tp_buf_putc(o->b, ',');
    jstr(o->b, k);
    tp_buf_putc(o->b, ':');
}

static void k_u64(struct obj *o, const char *k, uint64_t v) { key(o, k); ju64(o->b, v); }
static void k_i64(struct obj *o, const char *k, int64_t v) { key(o, k); ji64(o->b, v); }
static void k_dbl(struct obj *o, const char *k, double v) { key(o, k); jdbl(o->b, v); }
static void k_str(struct obj *o, const char *k, const char *v) { key(o, k); jstr(o->b, v); }
static void k_bool(struct obj *o, const char *k, int v) { key(o, k); tp_buf_puts(o->b, v ? "true" : "false"); }
static void k_char(struct obj *o, const char *k, char v) { key(o, k); jchar(o->b, v); }

static void latency(struct tp_buf *b, const struct tp_latency *l)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    k_u64(&o, "n", l->n);
    k_u64(&o, "min", l->min);
    k_u64(&o, "p50", l->p50);
    k_u64(&o, "p95", l->p95);
    k_u64(&o, "p99", l->p99);
    k_u64(&o, "max", l->max);
    k_dbl(&o, "mean", l->mean);
    k_dbl(&o, "stddev", l->stddev);
    k_dbl(&o, "p50_ci_lo", l->p50_ci_lo);
    k_dbl(&o, "p50_ci_hi", l->p50_ci_hi);
    tp_buf_putc(b, '}');
}

static void shape(struct tp_buf *b, const struct tp_shape *s)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    k_str(&o, "desc", s->desc);
    k_i64(&o, "m", s->m);
    k_i64(&o, "n", s->n);
    k_i64(&o, "k", s->k);
    k_char(&o, "transa", s->transa);
    k_char(&o, "transb", s->transb);
    k_char(&o, "layout", s->layout);
    k_u64(&o, "calls", s->calls);
    k_u64(&o, "total_ns", s->total_ns);
    k_u64(&o, "flops", s->flops);
    k_u64(&o, "bytes", s->bytes);
    tp_buf_putc(b, '}');
}

static void op(struct tp_buf *b, const struct tp_op *p)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    k_str(&o, "name", p->name);
    k_str(&o, "kind", p->kind);
    k_str(&o, "source", p->source);
    k_u64(&o, "calls", p->calls);
    k_u64(&o, "total_ns", p->total_ns);
    k_u64(&o, "self_ns", p->self_ns);
    k_u64(&o, "flops", p->flops);
    k_u64(&o, "bytes", p->bytes);
    k_bool(&o, "flops_known", p->flops_known);
    k_u64(&o, "warmup_calls", p->warmup_calls);
    k_u64(&o, "warmup_ns", p->warmup_ns);
    k_dbl(&o, "gflops", p->gflops);
    k_dbl(&o, "intensity", p->intensity);
    k_dbl(&o, "attainable_gflops", p->attainable_gflops);
    k_dbl(&o, "efficiency", p->efficiency);
    k_dbl(&o, "share", p->share);
    k_dbl(&o, "self_share", p->self_share);
    k_str(&o, "bound", p->bound ? p->bound : "unknown");
    k_u64(&o, "alloc_bytes", p->alloc_bytes);
    k_u64(&o, "alloc_count", p->alloc_count);
    k_u64(&o, "nprocs", p->nprocs);
    k_dbl(&o, "proc_min_ns", p->proc_min_ns);
    k_dbl(&o, "proc_mean_ns", p->proc_mean_ns);
    k_dbl(&o, "proc_max_ns", p->proc_max_ns);
    k_dbl(&o, "imbalance", p->imbalance);
    key(&o, "latency_ns");
    latency(b, &p->latency);
    key(&o, "shapes");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < p->nshapes; i++) {
        if (i)
            tp_buf_putc(b, ',');
        shape(b, &p->shapes[i]);
    }
    tp_buf_puts(b, "]}");
}

static void frame(struct tp_buf *b, const struct tp_frame *f)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    k_str(&o, "function", f->function);
    k_str(&o, "file", f->file);
    k_i64(&o, "line", f->line);
    k_str(&o, "module", f->module);
    k_u64(&o, "offset", f->offset);
    tp_buf_putc(b, '}');
}

static void site(struct tp_buf *b, const struct tp_site *s)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    key(&o, "frames");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < s->nframes; i++) {
        if (i)
            tp_buf_putc(b, ',');
        frame(b, &s->frames[i]);
    }
    tp_buf_putc(b, ']');
    k_u64(&o, "allocs", s->allocs);
    k_u64(&o, "frees", s->frees);
    k_u64(&o, "bytes", s->bytes);
    k_u64(&o, "peak_live_bytes", s->peak_live_bytes);
    k_u64(&o, "live_at_peak_bytes", s->live_at_peak_bytes);
    k_u64(&o, "live_at_exit_bytes", s->live_at_exit_bytes);
    k_u64(&o, "live_at_exit_allocs", s->live_at_exit_allocs);
    tp_buf_putc(b, '}');
}

static void memory(struct tp_buf *b, const struct tp_memory *m)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    k_u64(&o, "peak_bytes", m->peak_bytes);
    k_u64(&o, "peak_ns", m->peak_ns);
    k_str(&o, "peak_op", m->peak_op);
    k_u64(&o, "allocs", m->allocs);
    k_u64(&o, "frees", m->frees);
    k_u64(&o, "bytes_allocated", m->bytes_allocated);
    k_u64(&o, "live_at_exit_bytes", m->live_at_exit_bytes);
    k_u64(&o, "live_at_exit_allocs", m->live_at_exit_allocs);
    k_u64(&o, "peak_rss_bytes", m->peak_rss_bytes);
    k_u64(&o, "unknown_frees", m->unknown_frees);
    k_u64(&o, "failed_allocs", m->failed_allocs);
    k_u64(&o, "alloc_ns", m->alloc_ns);
    k_u64(&o, "persistent_bytes", m->persistent_bytes);
    k_u64(&o, "transient_bytes", m->transient_bytes);
    k_u64(&o, "nsites_total", m->nsites_total);
    key(&o, "sites");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < m->nsites; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        site(b, &m->sites[i]);
    }
    tp_buf_puts(b, "]}");
}

void tp_render_json(const struct tp_report *r, struct tp_buf *b)
{
    struct obj o = {b, 0};
    tp_buf_putc(b, '{');
    k_i64(&o, "schema", r->schema);
    k_str(&o, "tprof_version", r->tprof_version);
    k_bool(&o, "partial", r->partial);
    k_u64(&o, "merged_processes", r->merged_processes);
    key(&o, "notes");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < r->nnotes; i++) {
        if (i)
            tp_buf_putc(b, ',');
        jstr(b, r->notes[i]);
    }
    tp_buf_puts(b, "]\n");
    key(&o, "program");
    {
        const struct tp_program *p = &r->program;
        struct obj q = {b, 0};
        tp_buf_putc(b, '{');
        key(&q, "argv");
        tp_buf_putc(b, '[');
        for (size_t i = 0; i < p->argc; i++) {
            if (i)
                tp_buf_putc(b, ',');
            jstr(b, p->argv[i]);
        }
        tp_buf_putc(b, ']');
        k_str(&q, "exe", p->exe);
        k_str(&q, "host", p->host);
        k_i64(&q, "pid", p->pid);
        k_i64(&q, "ppid", p->ppid);
        k_i64(&q, "rank", p->rank);
        k_u64(&q, "wall_ns", p->wall_ns);
        k_u64(&q, "threads", p->threads);
        k_u64(&q, "start_unix_ns", p->start_unix_ns);
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, '\n');
    key(&o, "machine");
    {
        struct obj q = {b, 0};
        tp_buf_putc(b, '{');
        k_dbl(&q, "peak_gflops", r->machine.peak_gflops);
        k_dbl(&q, "peak_gbps", r->machine.peak_gbps);
        k_str(&q, "source", r->machine.source ? r->machine.source : "none");
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, '\n');
    key(&o, "ops");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < r->nops; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        op(b, &r->ops[i]);
    }
    tp_buf_puts(b, "]\n");
    key(&o, "memory");
    memory(b, &r->memory);
    tp_buf_putc(b, '\n');
    key(&o, "steps");
    {
        const struct tp_steps *s = &r->steps;
        struct obj q = {b, 0};
        tp_buf_putc(b, '{');
        k_str(&q, "name", s->name);
        k_u64(&q, "count", s->count);
        k_u64(&q, "warmup", s->warmup);
        key(&q, "latency_ns");
        latency(b, &s->latency);
        k_i64(&q, "window_first", s->window_first);
        k_i64(&q, "window_last", s->window_last);
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, '\n');
    key(&o, "verdict");
    {
        const struct tp_verdict *v = &r->verdict;
        struct obj q = {b, 0};
        tp_buf_putc(b, '{');
        k_str(&q, "op", v->op);
        k_dbl(&q, "share", v->share);
        k_str(&q, "bound", v->bound);
        k_dbl(&q, "efficiency", v->efficiency);
        k_str(&q, "text", v->text);
        k_u64(&q, "outside_ops_ns", v->outside_ops_ns);
        k_u64(&q, "alloc_ns", v->alloc_ns);
        key(&q, "amdahl");
        tp_buf_putc(b, '[');
        for (size_t i = 0; i < v->namdahl; i++) {
            const struct tp_amdahl *a = &v->amdahl[i];
            struct obj z = {b, 0};
            if (i)
                tp_buf_putc(b, ',');
            tp_buf_putc(b, '{');
            k_str(&z, "op", a->op);
            k_dbl(&z, "share", a->share);
            k_dbl(&z, "speedup_2x", a->speedup_2x);
            k_dbl(&z, "speedup_max", a->speedup_max);
            tp_buf_putc(b, '}');
        }
        tp_buf_puts(b, "]}");
    }
    tp_buf_putc(b, '\n');
    key(&o, "op_stacks");
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < r->nopstacks; i++) {
        const struct tp_opstack *s = &r->opstacks[i];
        struct obj z = {b, 0};
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        key(&z, "ops");
        tp_buf_putc(b, '[');
        for (size_t d = 0; d < s->depth; d++) {
            if (d)
                tp_buf_putc(b, ',');
            jstr(b, s->ops[d]);
        }
        tp_buf_putc(b, ']');
        k_u64(&z, "calls", s->calls);
        k_u64(&z, "total_ns", s->total_ns);
        k_u64(&z, "self_ns", s->self_ns);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "]\n");
    k_u64(&o, "op_stacks_dropped", r->opstacks_dropped);
    key(&o, "outputs");
    {
        const struct tp_outputs *x = &r->outputs;
        struct obj q = {b, 0};
        tp_buf_putc(b, '{');
        k_str(&q, "trace", x->trace);
        k_u64(&q, "trace_calls", x->trace_calls);
        k_u64(&q, "trace_events", x->trace_events);
        k_u64(&q, "trace_past_cap", x->trace_past_cap);
        k_u64(&q, "trace_past_max", x->trace_past_max);
        k_u64(&q, "trace_heap_samples", x->trace_heap_samples);
        k_u64(&q, "trace_bytes", x->trace_bytes);
        k_str(&q, "folded_time", x->folded_time);
        k_str(&q, "folded_heap", x->folded_heap);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "}\n");
}
