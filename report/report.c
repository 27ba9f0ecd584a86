#include "report/report.h"
#include "report/siterollup.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze/analyze.h"
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
        TP_STEPS_FIELDS(INIT)
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
    for (size_t i = 0; i < s->nkernels; i++) {
        struct tp_kernel *k = &s->kernels[i];
        {
            struct tp_kernel *s = k;
            TP_KERNEL_FIELDS(FREE)
        }
    }
    free(s->kernels);
}

void tp_frames_free(struct tp_frame *frames, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct tp_frame *s = &frames[i];
        TP_FRAME_FIELDS(FREE)
    }
    free(frames);
}

void tp_site_free_frames(struct tp_site *site)
{
    tp_frames_free(site->frames, site->nframes);
    site->frames = NULL;
    site->nframes = 0;
}

static void free_ledger(struct tp_memory *m)
{
    for (size_t i = 0; i < m->nledger; i++) {
        struct tp_ledger_row *s = &m->ledger[i];
        TP_LEDGER_ROW_FIELDS(FREE)
    }
    free(m->ledger);
    for (size_t i = 0; i < m->nmappings; i++) {
        struct tp_mapping *s = &m->mappings[i];
        tp_frames_free(s->frames, s->nframes);
        TP_MAPPING_FIELDS(FREE)
    }
    free(m->mappings);
    free(m->ledger_series);
}

static void free_gpu(struct tp_gpu *g)
{
    {
        struct tp_gpu *s = g;
        TP_GPU_FIELDS(FREE)
    }
    for (size_t i = 0; i < g->ndevices; i++) {
        struct tp_gpu_device *s = &g->devices[i];
        TP_GPU_DEVICE_FIELDS(FREE)
    }
    free(g->devices);
    for (size_t i = 0; i < g->nsites; i++) {
        struct tp_gpu_site *s = &g->sites[i];
        tp_frames_free(s->frames, s->nframes);
        TP_GPU_SITE_FIELDS(FREE)
    }
    free(g->sites);
    for (size_t i = 0; i < g->ncopies; i++) {
        struct tp_gpu_copy *s = &g->copies[i];
        TP_GPU_COPY_FIELDS(FREE)
    }
    free(g->copies);
    for (size_t i = 0; i < g->nkernels; i++) {
        struct tp_gpu_kernel *s = &g->kernels[i];
        TP_GPU_KERNEL_FIELDS(FREE)
    }
    free(g->kernels);
    for (size_t i = 0; i < g->nsyncs; i++) {
        struct tp_gpu_sync *s = &g->syncs[i];
        TP_GPU_SYNC_FIELDS(FREE)
    }
    free(g->syncs);
    for (size_t i = 0; i < g->ngemms; i++) {
        struct tp_gpu_gemm *s = &g->gemms[i];
        TP_GPU_GEMM_FIELDS(FREE)
    }
    free(g->gemms);
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
    {
        struct tp_record *s = &r->record;
        TP_RECORD_FIELDS(FREE)
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
    for (size_t i = 0; i < r->memory.nggml_buffers; i++) {
        struct tp_ggml_buffer *s = &r->memory.ggml_buffers[i];
        TP_GGML_BUFFER_FIELDS(FREE)
    }
    free(r->memory.ggml_buffers);
    free_ledger(&r->memory);
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
        tp_outside_free_at(s);
    }
    free(r->outside_ops);
    tp_threads_free(r);
    for (size_t i = 0; i < r->nmodules; i++) {
        struct tp_modinfo *s = &r->modules[i];
        TP_MODULE_FIELDS(FREE)
    }
    free(r->modules);
    free_gpu(&r->gpu);
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

void tp_threads_free(struct tp_report *r)
{
    for (size_t i = 0; i < r->nthreads; i++) {
        struct tp_thread *s = &r->threads[i];
        TP_THREAD_FIELDS(FREE)
    }
    free(r->threads);
    r->threads = NULL;
    r->nthreads = 0;
}

void tp_outside_free_at(struct tp_outside_fn *f)
{
    for (size_t i = 0; i < f->nat; i++) {
        struct tp_sampled_at *s = &f->at[i];
        TP_SAMPLED_AT_FIELDS(FREE)
    }
    free(f->at);
    f->at = NULL;
    f->nat = 0;
}
