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

static void free_site(struct tp_site *s)
{
    for (size_t i = 0; i < s->nframes; i++) {
        free(s->frames[i].function);
        free(s->frames[i].file);
        free(s->frames[i].module);
    }
    free(s->frames);
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
