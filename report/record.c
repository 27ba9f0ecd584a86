/* A record made a report (see report/record.h). Everything here once ran in the profiled process
 * at its exit; it reads debug information (report/sym/) and may measure the machine's peaks for
 * a quarter of a second (report/peaks/): work and memory that now count in no figure of the
 * program's, its peak RSS included. */
#include "report/record.h"

#include <stdlib.h>
#include <string.h>

#include "common/suppress.h"
#include "report/peaks/peaks.h"
#include "report/sym/sym.h"
#include "report/units.h"

static void free_frame(struct tp_frame *f)
{
    free(f->function);
    free(f->file);
    free(f->module);
    memset(f, 0, sizeof *f);
}

/* Recorded frames (module and offset) as source frames: each may stand for several, the
 * functions the compiler inlined at it. A frame the recorder named already is kept; allocator
 * frames at the top are dropped. */
static void name_frames(struct tp_symbolizer *sym, struct tp_frame **frames, size_t *nframes)
{
    struct tp_frame *in = *frames;
    size_t nin = *nframes, cap = nin + TP_SYM_MAX_FRAMES, n = 0;
    struct tp_frame *out = calloc(cap, sizeof *out);
    if (!out)
        return;
    for (size_t i = 0; i < nin; i++) {
        if (in[i].function) {
            out[n++] = in[i];
            memset(&in[i], 0, sizeof in[i]);
            continue;
        }
        if (cap - n < TP_SYM_MAX_FRAMES) {
            struct tp_frame *g = realloc(out, 2 * cap * sizeof *g);
            if (!g)
                break;
            memset(g + cap, 0, cap * sizeof *g);
            out = g;
            cap *= 2;
        }
        struct tp_frame *f = &out[n];
        int k = tp_sym_frames(sym, in[i].module, in[i].offset, 1, f, TP_SYM_MAX_FRAMES);
        if (k > 0 && n == 0 && tp_frame_is_allocator(f[k - 1].function)) {
            for (int j = 0; j < k; j++)
                free_frame(&f[j]);
            continue;
        }
        n += (size_t)(k > 0 ? k : 0);
    }
    tp_frames_free(in, nin);
    *frames = out;
    *nframes = n;
}

static void name_site(struct tp_symbolizer *sym, struct tp_site *s)
{
    name_frames(sym, &s->frames, &s->nframes);
}

/* A leak matched by a TPROF_SUPPRESS pattern: a function, source file or module of any frame. */
static int suppressed(const char *patterns, const struct tp_site *s)
{
    for (size_t i = 0; patterns && i < s->nframes; i++) {
        const struct tp_frame *f = &s->frames[i];
        if (tp_suppress_match(patterns, f->function) || tp_suppress_match(patterns, f->file) ||
            tp_suppress_match(patterns, f->module))
            return 1;
    }
    return 0;
}

/* Flag the n named sites (a role, a system library's, an interpreter's, suppressed), and split
 * what is live at exit accordingly: the program's part is the rest, the rolled-up sites
 * included. */
static void classify_sites(struct tp_memory *m, struct tp_site *all, size_t n, const char *patterns)
{
    uint64_t sys_b = 0, sys_n = 0, sup_b = 0, sup_n = 0, int_b = 0, int_n = 0;
    tp_sites_classify(all, n);
    for (size_t i = 0; i < n; i++) {
        struct tp_site *s = &all[i];
        s->suppressed = s->live_at_exit_bytes && suppressed(patterns, s);
        if (s->suppressed) {
            sup_b += s->live_at_exit_bytes;
            sup_n += s->live_at_exit_allocs;
        } else if (s->system) {
            sys_b += s->live_at_exit_bytes;
            sys_n += s->live_at_exit_allocs;
        } else if (s->interpreter) {
            int_b += s->live_at_exit_bytes;
            int_n += s->live_at_exit_allocs;
        }
    }
    m->live_at_exit_system_bytes = sys_b;
    m->live_at_exit_system_allocs = sys_n;
    m->live_at_exit_suppressed_bytes = sup_b;
    m->live_at_exit_suppressed_allocs = sup_n;
    m->live_at_exit_interpreter_bytes = int_b;
    m->live_at_exit_interpreter_allocs = int_n;
    uint64_t kb = sys_b + sup_b + int_b, kn = sys_n + sup_n + int_n;
    m->live_at_exit_program_bytes = m->live_at_exit_bytes > kb ? m->live_at_exit_bytes - kb : 0;
    m->live_at_exit_program_allocs = m->live_at_exit_allocs > kn ? m->live_at_exit_allocs - kn : 0;
}

static int by_importance(const void *a, const void *b)
{
    return tp_site_cmp_importance(a, b);
}

/* The recorded sites named, merged by source line and classified; the ones there only to
 * classify what is live at exit (the record's leak_sites, last) then go. */
static void finish_sites(struct tp_report *r, struct tp_symbolizer *sym)
{
    struct tp_memory *m = &r->memory;
    size_t n = m->nsites, nleak = r->record.leak_sites <= n ? (size_t)r->record.leak_sites : 0;
    size_t nsel = n - nleak;
    for (size_t i = 0; sym && i < n; i++)
        name_site(sym, &m->sites[i]);
    size_t merged = m->sites ? tp_sites_merge_same_lines(m->sites, nsel, m->peak_bytes) : 0;
    if (merged < nsel) {
        tp_report_note(r, "sites that differ only in instruction address (unrolled or duplicated "
                          "code) are merged by source line; their own peak is then an upper bound");
        memmove(m->sites + merged, m->sites + nsel, nleak * sizeof *m->sites);
        memset(m->sites + merged + nleak, 0, (nsel - merged) * sizeof *m->sites);
        m->nsites_total -= nsel - merged;
    }
    if (merged)
        qsort(m->sites, merged, sizeof *m->sites, by_importance);
    classify_sites(m, m->sites, merged + nleak, r->record.suppress);
    for (size_t i = merged; i < merged + nleak; i++)
        tp_site_free_frames(&m->sites[i]);
    m->nsites = merged;
    uint64_t rest = m->nsites_total > merged ? m->nsites_total - merged : 0;
    if (rest)
        tp_report_note(r,
                       "%zu of %llu call sites written (TPROF_JSON_SITES=%d: the top %d by live "
                       "at peak, bytes, allocations and live at exit); the other %llu are rolled "
                       "up per function and module into %zu rows (memory.site_rollups)",
                       merged, (unsigned long long)m->nsites_total, (int)r->record.json_sites,
                       (int)r->record.json_sites, (unsigned long long)rest, m->nrollups);
}

/* The function inlined at a sampled address (innermost), malloc'ed, or NULL when nothing was
 * inlined there or there is no debug information. */
static char *inlined_at(struct tp_symbolizer *sym, const struct tp_sampled_at *a)
{
    struct tp_frame fr[TP_SYM_MAX_FRAMES];
    int n = tp_sym_frames(sym, a->module, a->offset, 0, fr, TP_SYM_MAX_FRAMES);
    char *name = NULL;
    if (n > 1 && fr[0].inlined && fr[0].function)
        name = strdup(fr[0].function);
    for (int i = 0; i < n; i++)
        free_frame(&fr[i]);
    return name;
}

/* The inlined function holding more than half of a function's samples outside ops, or NULL. */
static char *mostly_inlined(struct tp_symbolizer *sym, const struct tp_outside_fn *o)
{
    struct tally {
        char *name;
        uint64_t n;
    } *t = calloc(o->nat ? o->nat : 1, sizeof *t);
    uint64_t all = 0;
    size_t nt = 0;
    if (!t)
        return NULL;
    for (size_t i = 0; i < o->nat; i++) {
        all += o->at[i].n;
        char *name = inlined_at(sym, &o->at[i]);
        if (!name)
            continue;
        size_t j = 0;
        while (j < nt && strcmp(t[j].name, name))
            j++;
        if (j == nt)
            t[nt++].name = name;
        else
            free(name);
        t[j].n += o->at[i].n;
    }
    char *best = NULL;
    for (size_t j = 0; j < nt; j++) {
        if (!best && 2 * t[j].n > all)
            best = t[j].name;
        else
            free(t[j].name);
    }
    free(t);
    return best;
}

/* The machine's peaks. A quick measurement (report/peaks/peaks.h) costs a quarter of a second:
 * only when a roofline needs it (an op has FLOPs), and only for the report that ends the
 * process, so that snapshots and reports on signal do not each pay it. */
static void machine(struct tp_report *r)
{
    int need = 0;
    for (size_t i = 0; i < r->nops; i++)
        need |= r->ops[i].flops > 0;
    int last = r->record.last;
    int rc =
        tp_peaks_resolve(&r->machine, r->record.peak_gflops, r->record.peak_gbps, need && last);
    if (need && rc < 0 && !last)
        tp_report_note(r, "machine peaks not measured for this report: the quick measurement is "
                          "made only for the report at the process's exit (`tprof calibrate` "
                          "caches them)");
    char pnote[1400];
    tp_peaks_note(r->machine.source, pnote, sizeof pnote);
    if (pnote[0])
        tp_report_note(r, "%s", pnote);
}

static int row_desc(const void *a, const void *b)
{
    const struct tp_ledger_row *x = a, *y = b;
    return x->resident_bytes > y->resident_bytes ? -1 : x->resident_bytes < y->resident_bytes;
}

/* Rows of one kind and name are one row: call sites that differ below their innermost frame (an
 * interpreter's arena allocator called from many places), or one file mapped from two sites. The
 * first (the most resident: rows come in that order) keeps its mapping. */
static void merge_rows(struct tp_memory *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nledger; i++) {
        struct tp_ledger_row *r = &m->ledger[i];
        size_t j = 0;
        while (j < n &&
               !(r->kind && r->name && m->ledger[j].kind && m->ledger[j].name &&
                 !strcmp(r->kind, m->ledger[j].kind) && !strcmp(r->name, m->ledger[j].name)))
            j++;
        if (j == n) {
            m->ledger[n++] = *r;
            continue;
        }
        m->ledger[j].resident_bytes += r->resident_bytes;
        m->ledger[j].mapped_bytes += r->mapped_bytes;
        free(r->kind);
        free(r->name);
    }
    m->nledger = n;
    /* most resident first again, "unexplained" last */
    if (n > 1)
        qsort(m->ledger, n - 1, sizeof *m->ledger, row_desc);
}

/* The mappings' call sites named, and the ledger's rows of anonymous memory named by theirs:
 * the innermost frame of the program's (the recorder writes no name). */
static void finish_mappings(struct tp_memory *m, struct tp_symbolizer *sym)
{
    for (size_t i = 0; sym && i < m->nmappings; i++)
        name_frames(sym, &m->mappings[i].frames, &m->mappings[i].nframes);
    for (size_t i = 0; i < m->nledger; i++) {
        struct tp_ledger_row *row = &m->ledger[i];
        if (row->name || row->mapping < 0 || (size_t)row->mapping >= m->nmappings)
            continue;
        const struct tp_mapping *map = &m->mappings[row->mapping];
        char at[512];
        row->name = strdup(map->nframes ? tp_fmt_frame(&map->frames[0], at, sizeof at) : "?");
    }
    merge_rows(m);
}

void tp_record_report(struct tp_report *r)
{
    if (!r->record.version)
        return;
    struct tp_symbolizer *sym = tp_sym_open(r->record.debuginfod);
    tp_record_report_with(r, sym);
    tp_sym_close(sym);
}

void tp_record_report_with(struct tp_report *r, struct tp_symbolizer *sym)
{
    if (!r->record.version)
        return;
    finish_sites(r, sym);
    finish_mappings(&r->memory, sym);
    for (size_t i = 0; sym && i < r->gpu.nsites; i++)
        name_frames(sym, &r->gpu.sites[i].frames, &r->gpu.sites[i].nframes);
    for (size_t i = 0; i < r->noutside_ops; i++) {
        struct tp_outside_fn *o = &r->outside_ops[i];
        if (o->nat && sym && !o->inlined)
            o->inlined = mostly_inlined(sym, o);
        tp_outside_free_at(o);
    }
    machine(r);
    free(r->record.suppress);
    memset(&r->record, 0, sizeof r->record);
}
