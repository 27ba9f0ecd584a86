#include "report/report.h"
#include "report/siterollup.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cpuverdict.h"
#include "report/fields.h"

/* One scalar of a report/fields.h list of struct s: I_ sets its default where that is not 0 (only
 * signed integers have one), F_ frees it (only strings are owned). */
#define I_I64(f, d) s->f = d;
#define I_OTHER(f, d)
#define I_U64            I_OTHER
#define I_LINE           I_OTHER
#define I_DBL            I_OTHER
#define I_NS             I_OTHER
#define I_BOOL           I_OTHER
#define I_CHR            I_OTHER
#define I_STR            I_OTHER
#define INIT(KIND, f, d) I_##KIND(f, d)
#define F_STR(f, d)      free(s->f);
#define F_OTHER(f, d)
#define F_U64            F_OTHER
#define F_I64            F_OTHER
#define F_LINE           F_OTHER
#define F_DBL            F_OTHER
#define F_NS             F_OTHER
#define F_BOOL           F_OTHER
#define F_CHR            F_OTHER
#define FREE(KIND, f, d) F_##KIND(f, d)

void tp_report_init(struct tp_report *r)
{
    memset(r, 0, sizeof *r);
    r->schema = TP_SCHEMA_VERSION;
    {
        struct tp_program *s = &r->program;
        TP_PROGRAM_FIELDS(INIT)
    }
    {
        struct tp_steps *s = &r->steps;
        TP_STEPS_WINDOW_FIELDS(INIT)
    }
}

static void free_shape(struct tp_shape *s)
{
    TP_SHAPE_FIELDS(FREE)
}

static void free_op(struct tp_op *s)
{
    TP_OP_FIELDS(FREE)
    for (size_t i = 0; i < s->nshapes; i++)
        free_shape(&s->shapes[i]);
    free(s->shapes);
}

void tp_site_free_frames(struct tp_site *site)
{
    for (size_t i = 0; i < site->nframes; i++) {
        struct tp_frame *s = &site->frames[i];
        TP_FRAME_FIELDS(FREE)
    }
    free(site->frames);
    site->frames = NULL;
    site->nframes = 0;
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

/* A hash that agrees with same_site: equal sites hash equal. A frame with a line is hashed by
 * function, file and line, one without by function, module and offset; same_frame's mixed case
 * (one side with a line, the other without) needs the same module offset, i.e. the same pc, which
 * symbolises the same way on both sides. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x100000001b3ull;
    return h ^ (h >> 29);
}

static uint64_t mix_str(uint64_t h, const char *p)
{
    for (; p && *p; p++)
        h = mix(h, (unsigned char)*p);
    return mix(h, 0xff);
}

static uint64_t site_hash(const struct tp_site *s)
{
    uint64_t h = mix(0xcbf29ce484222325ull, s->nframes);
    for (size_t i = 0; i < s->nframes; i++) {
        const struct tp_frame *f = &s->frames[i];
        h = mix_str(h, f->function);
        if (f->line) {
            h = mix_str(h, f->file);
            h = mix(h, (uint64_t)f->line);
        } else {
            h = mix_str(h, f->module);
            h = mix(h, f->offset);
        }
    }
    return h;
}

struct site_ord {
    uint64_t hash;
    size_t at;
};

static int by_hash_then_place(const void *x, const void *y)
{
    const struct site_ord *a = x, *b = y;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static void add_into(struct tp_site *d, struct tp_site *s, uint64_t cap)
{
    d->allocs += s->allocs;
    d->frees += s->frees;
    d->bytes += s->bytes;
    d->peak_live_bytes += s->peak_live_bytes;
    if (cap && d->peak_live_bytes > cap)
        d->peak_live_bytes = cap;
    d->live_at_peak_bytes += s->live_at_peak_bytes;
    d->live_at_exit_bytes += s->live_at_exit_bytes;
    d->live_at_exit_allocs += s->live_at_exit_allocs;
    tp_site_free_frames(s);
}

size_t tp_sites_merge_same_lines(struct tp_site *s, size_t n, uint64_t cap)
{
    /* Sort by hash, compare only within a run of equal hashes (almost always one site), merge
     * each site into the first earlier site with the same frames: O(n log n), where comparing
     * every pair took 0.2 s at exit for 4,000 sites. */
    struct site_ord *ord = malloc((n ? n : 1) * sizeof *ord);
    size_t *lead = malloc((n ? n : 1) * sizeof *lead);
    if (!ord || !lead) {
        free(ord);
        free(lead);
        return n; /* out of memory: report the sites unmerged */
    }
    for (size_t i = 0; i < n; i++) {
        ord[i].hash = site_hash(&s[i]);
        ord[i].at = i;
        lead[i] = i;
    }
    qsort(ord, n, sizeof *ord, by_hash_then_place);
    for (size_t r = 0; r < n;) {
        size_t e = r + 1;
        while (e < n && ord[e].hash == ord[r].hash)
            e++;
        for (size_t k = r + 1; k < e; k++)
            for (size_t m = r; m < k; m++) {
                size_t a = ord[m].at;
                if (lead[a] == a && same_site(&s[a], &s[ord[k].at])) {
                    lead[ord[k].at] = a;
                    break;
                }
            }
        r = e;
    }
    /* Compact in the original order; a leader always comes before the sites merged into it,
     * and ord[].at is reused as the leader's new place. */
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (lead[i] == i) {
            ord[i].at = out;
            if (out != i)
                s[out] = s[i];
            out++;
        } else {
            add_into(&s[ord[lead[i]].at], &s[i], cap);
        }
    }
    for (size_t i = out; i < n; i++)
        memset(&s[i], 0, sizeof s[i]);
    free(ord);
    free(lead);
    return out;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void tp_report_free(struct tp_report *r)
{
    {
        struct tp_report *s = r;
        TP_REPORT_FIELDS(FREE)
    }
    free_strings(r->notes, r->nnotes);
    free_strings(r->program.argv, r->program.argc);
    {
        struct tp_program *s = &r->program;
        TP_PROGRAM_FIELDS(FREE)
    }
    {
        struct tp_machine *s = &r->machine;
        TP_MACHINE_FIELDS(FREE)
    }
    for (size_t i = 0; i < r->nops; i++)
        free_op(&r->ops[i]);
    free(r->ops);
    {
        struct tp_memory *s = &r->memory;
        TP_MEMORY_FIELDS(FREE)
    }
    tp_memory_free_sites(&r->memory);
    for (size_t i = 0; i < r->memory.nseries; i++) {
        struct tp_heap_point *s = &r->memory.series[i];
        TP_HEAP_POINT_FIELDS(FREE)
    }
    free(r->memory.series);
    free(r->steps.series);
    {
        struct tp_steps *s = &r->steps;
        TP_STEPS_FIELDS(FREE)
    }
    {
        struct tp_verdict *s = &r->verdict;
        TP_VERDICT_FIELDS(FREE)
    }
    {
        struct tp_samples *s = &r->samples;
        TP_SAMPLES_FIELDS(FREE)
    }
    for (size_t i = 0; i < r->verdict.namdahl; i++) {
        struct tp_amdahl *s = &r->verdict.amdahl[i];
        TP_AMDAHL_FIELDS(FREE)
    }
    free(r->verdict.amdahl);
    for (size_t i = 0; i < r->nopstacks; i++)
        free_strings(r->opstacks[i].ops, r->opstacks[i].depth);
    free(r->opstacks);
    {
        struct tp_outputs *s = &r->outputs;
        TP_OUTPUTS_FIELDS(FREE)
    }
    for (size_t i = 0; i < r->noutside_ops; i++) {
        struct tp_outside_fn *s = &r->outside_ops[i];
        TP_OUTSIDE_FIELDS(FREE)
    }
    free(r->outside_ops);
    tp_threads_free(r);
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

int tp_site_cmp_importance(const struct tp_site *x, const struct tp_site *y)
{
    if (x->live_at_peak_bytes != y->live_at_peak_bytes)
        return x->live_at_peak_bytes < y->live_at_peak_bytes ? 1 : -1;
    if (x->peak_live_bytes != y->peak_live_bytes)
        return x->peak_live_bytes < y->peak_live_bytes ? 1 : -1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return 0;
}

size_t tp_site_first_own(const struct tp_site *s)
{
    size_t i = 0;
    while (i < s->nframes && s->frames[i].inlined && s->frames[i].file &&
           !strncmp(s->frames[i].file, "/usr/", 5))
        i++;
    return i < s->nframes ? i : 0;
}

const char *tp_lifetime_noun(const struct tp_memory *m)
{
    return m->lifetime_unit && !strcmp(m->lifetime_unit, "op_call") ? "op call" : "step";
}

/* Ops ran on several threads at once: some op's wall-clock time is less than its thread time. */
int tp_ops_overlapped(const struct tp_report *r)
{
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].self_wall_ns && r->ops[i].self_wall_ns < r->ops[i].self_ns)
            return 1;
    return 0;
}
