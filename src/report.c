#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_report_init(struct tp_report *r)
{
    memset(r, 0, sizeof *r);
    r->schema = TP_SCHEMA_VERSION;
    r->program.pid = r->program.ppid = -1;
    r->steps.window_first = r->steps.window_last = -1;
}

static void free_latency_free_op(struct tp_op *o)
{
    free(o->name);
    free(o->kind);
    free(o->source);
    free(o->bound);
    for (size_t i = 0; i < o->nshapes; i++)
        free(o->shapes[i].desc);
    free(o->shapes);
}

void tp_site_free_frames(struct tp_site *s)
{
    for (size_t i = 0; i < s->nframes; i++) {
        free(s->frames[i].function);
        free(s->frames[i].file);
        free(s->frames[i].module);
    }
    free(s->frames);
    s->frames = NULL;
    s->nframes = 0;
}

static void free_site(struct tp_site *s)
{
    tp_site_free_frames(s);
}

static int streq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Same source position: function and file:line when known, else the same module offset. */
static int same_frame(const struct tp_frame *a, const struct tp_frame *b)
{
    if (a->line && b->line)
        return a->line == b->line && streq(a->file, b->file) && streq(a->function, b->function);
    return a->offset == b->offset && streq(a->module, b->module) && streq(a->function, b->function);
}

static int same_site(const struct tp_site *a, const struct tp_site *b)
{
    if (a->nframes != b->nframes || a->nframes == 0)
        return 0;
    for (size_t i = 0; i < a->nframes; i++)
        if (!same_frame(&a->frames[i], &b->frames[i]))
            return 0;
    return 1;
}

size_t tp_sites_merge_same_lines(struct tp_site *s, size_t n, uint64_t cap)
{
    /* Quadratic only within groups of equal first frames; sites are few after symbolisation
     * limits, and most groups have one member. */
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j;
        for (j = 0; j < out; j++)
            if (same_site(&s[j], &s[i]))
                break;
        if (j == out) {
            if (out != i)
                s[out] = s[i];
            out++;
            continue;
        }
        struct tp_site *d = &s[j];
        d->allocs += s[i].allocs;
        d->frees += s[i].frees;
        d->bytes += s[i].bytes;
        d->peak_live_bytes += s[i].peak_live_bytes;
        if (cap && d->peak_live_bytes > cap)
            d->peak_live_bytes = cap;
        d->live_at_peak_bytes += s[i].live_at_peak_bytes;
        d->live_at_exit_bytes += s[i].live_at_exit_bytes;
        d->live_at_exit_allocs += s[i].live_at_exit_allocs;
        tp_site_free_frames(&s[i]);
    }
    for (size_t i = out; i < n; i++)
        memset(&s[i], 0, sizeof s[i]);
    return out;
}

void tp_report_free(struct tp_report *r)
{
    free(r->tprof_version);
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    for (size_t i = 0; i < r->program.argc; i++)
        free(r->program.argv[i]);
    free(r->program.argv);
    free(r->program.exe);
    free(r->program.host);
    free(r->machine.source);
    for (size_t i = 0; i < r->nops; i++)
        free_latency_free_op(&r->ops[i]);
    free(r->ops);
    free(r->memory.peak_op);
    for (size_t i = 0; i < r->memory.nsites; i++)
        free_site(&r->memory.sites[i]);
    free(r->memory.sites);
    free(r->steps.name);
    free(r->verdict.op);
    free(r->verdict.bound);
    free(r->verdict.text);
    for (size_t i = 0; i < r->verdict.namdahl; i++)
        free(r->verdict.amdahl[i].op);
    free(r->verdict.amdahl);
    tp_report_init(r);
}

void tp_report_note(struct tp_report *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char **n = realloc(r->notes, (r->nnotes + 1) * sizeof *n);
    if (!n)
        return;
    r->notes = n;
    char *copy = strdup(line);
    if (copy)
        r->notes[r->nnotes++] = copy;
}
