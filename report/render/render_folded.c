/* Folded stacks: one "frame;frame;frame value" line per distinct stack, outermost frame first,
 * the format of Brendan Gregg's stackcollapse scripts, read by flamegraph.pl, speedscope and
 * inferno. Lines are sorted so that two runs of the same program give comparable files, and a
 * stack that appears twice (two sites that differ only in line number) is written once with
 * the sum.
 *
 * The first line is a '#' comment that states the unit of the values (nanoseconds or bytes):
 * the format has no place for one. It does not end in a number, so all three readers skip it
 * (flamegraph.pl counts it as one "ignored line"), and it sorts before every stack, which
 * inferno's check of sorted input needs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "report/render/render.h"

struct line {
    char *stack;
    uint64_t value;
};

/* A frame name in the folded format: ';' separates frames and a newline ends the line, so both
 * become other characters; spaces are fine (the value is after the last one). */
static void put_frame(struct tp_buf *b, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        tp_buf_putc(b, c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c);
    }
}

/* An inlined function ends in "_[i]", the mark flamegraph.pl colours inlined frames by. */
static void put_site_frame(struct tp_buf *b, const struct tp_frame *f)
{
    if (f->function) {
        put_frame(b, f->function);
        if (f->inlined)
            tp_buf_puts(b, "_[i]");
    } else {
        char off[64];
        snprintf(off, sizeof off, "+0x%llx", (unsigned long long)f->offset);
        put_frame(b, tp_base_name(f->module, "?"));
        tp_buf_puts(b, off);
    }
}

static int is_main(const struct tp_frame *f)
{
    return f->function && !strcmp(f->function, "main");
}

/* Where a process's or a thread's stack starts: a stack whose outermost frame is none of these
 * was cut (TPROF_STACK frames deep, or the unwinder stopped). */
static int is_root(const struct tp_frame *f)
{
    static const char *const roots[] = {
        "_start",       "clone",    "clone3",   "__clone",        "__clone3",
        "start_thread", "_dl_init", "_dl_fini", "_dl_start_user", "__libc_start_main"};
    if (f->function)
        for (size_t i = 0; i < sizeof roots / sizeof *roots; i++)
            if (!strcmp(f->function, roots[i]))
                return 1;
    const char *m = tp_base_name(f->module, "?");
    return !strncmp(m, "ld-linux", 8) || !strncmp(m, "ld.so", 5);
}

/* Stacks start at main: the C runtime frames above it are the same for every site, and a stack
 * cut a few frames short of them would otherwise root at __libc_start_call_main or main and draw
 * the program as two towers. A stack that reaches neither main nor a root is marked partial. */
void tp_site_flame_top(const struct tp_site *s, size_t *top, int *partial)
{
    *top = s->nframes ? s->nframes - 1 : 0;
    *partial = 0;
    if (!s->nframes)
        return;
    for (size_t d = s->nframes; d-- > 0;)
        if (is_main(&s->frames[d])) {
            *top = d;
            return;
        }
    *partial = !is_root(&s->frames[*top]);
}

/* A heap site's frames, outermost first, a cut stack under "[partial stack]". */
static void put_site_stack(struct tp_buf *t, const struct tp_site *s)
{
    size_t top;
    int partial;
    tp_site_flame_top(s, &top, &partial);
    if (partial)
        tp_buf_puts(t, "[partial stack];");
    for (size_t d = top + 1; d-- > 0;) {
        put_site_frame(t, &s->frames[d]);
        if (d)
            tp_buf_putc(t, ';');
    }
}

static int by_stack(const void *a, const void *b)
{
    const struct line *x = a, *y = b;
    return strcmp(x->stack, y->stack);
}

static size_t emit(struct line *l, size_t n, const char *unit, struct tp_buf *b)
{
    qsort(l, n, sizeof *l, by_stack);
    tp_buf_puts(b, unit);
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        uint64_t v = 0;
        size_t j = i;
        for (; j < n && !strcmp(l[j].stack, l[i].stack); j++)
            v = v > UINT64_MAX - l[j].value ? UINT64_MAX : v + l[j].value;
        if (v) {
            tp_buf_printf(b, "%s %llu\n", l[i].stack, (unsigned long long)v);
            out++;
        }
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        free(l[i].stack);
    free(l);
    return out;
}

static char *take(struct tp_buf *t)
{
    char *s = strdup(tp_buf_str(t));
    t->len = 0;
    return s;
}

size_t tp_render_folded(const struct tp_report *r, enum tp_folded_kind kind, struct tp_buf *b)
{
    size_t cap = (kind == TP_FOLDED_TIME ? r->nopstacks : r->memory.nsites) + 1;
    struct line *l = calloc(cap, sizeof *l);
    if (!l)
        return 0;
    size_t n = 0;
    struct tp_buf t;
    tp_buf_init(&t);
    if (kind == TP_FOLDED_TIME) {
        for (size_t i = 0; i < r->nopstacks; i++) {
            const struct tp_opstack *s = &r->opstacks[i];
            for (size_t d = 0; d < s->depth; d++) {
                if (d)
                    tp_buf_putc(&t, ';');
                put_frame(&t, s->ops[d] ? s->ops[d] : "?");
            }
            l[n].value = s->self_ns;
            if ((l[n].stack = take(&t)))
                n++;
        }
        /* So that the graph's width is the run's: what ran outside every op. */
        l[n].value = r->verdict.outside_ops_ns;
        if ((l[n].stack = strdup("[outside ops]")))
            n++;
    } else {
        uint64_t sum = 0;
        for (size_t i = 0; i < r->memory.nsites; i++) {
            const struct tp_site *s = &r->memory.sites[i];
            if (!s->live_at_peak_bytes || !s->nframes)
                continue;
            put_site_stack(&t, s);
            l[n].value = s->live_at_peak_bytes;
            sum += s->live_at_peak_bytes;
            if ((l[n].stack = take(&t)))
                n++;
        }
        /* Sites not written (TPROF_JSON_SITES) still held part of the peak. */
        if (r->memory.peak_bytes > sum) {
            l[n].value = r->memory.peak_bytes - sum;
            if ((l[n].stack = strdup("[sites not in the report]")))
                n++;
        }
    }
    tp_buf_free(&t);
    return emit(l, n,
                kind == TP_FOLDED_TIME
                    ? "# tprof op time: self time in nanoseconds per op stack "
                      "(flamegraph.pl --countname ns)\n"
                    : "# tprof heap at its peak: bytes live at the peak per allocation stack "
                      "(flamegraph.pl --countname bytes)\n",
                b);
}
