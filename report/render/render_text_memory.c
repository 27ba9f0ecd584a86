/* The memory half of the text report: the MEMORY summary, the call sites that hold the heap
 * peak, and what leaked (the layout helpers are report/render/render_text_layout.c's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "report/analyze/analyze.h"
#include "report/render/render.h"
#include "report/render/render_text.h"
#include "report/units.h"

/* ---- memory ---- */

/* A site's stack under --wide: whole, as long as the line buffers hold (2048 bytes). */
#define WIDE_ROOM 1900
/* Rows of the short report's call sites and leaks. */
#define SHORT_SITES 3
#define SHORT_LEAKS 2

/* Which unit "within its step" meant (track/steps/lifeunit.c). */
static void lifetime_unit_line(struct tp_text_ctx *c, const struct tp_memory *m)
{
    const char *k = m->lifetime_unit, *s = m->lifetime_step ? m->lifetime_step : "?";
    if (!k)
        return;
    if (!strcmp(k, "step"))
        tp_text_say(c, "step: %s (TPROF_STEP)", s);
    else if (!strcmp(k, "ggml_graph"))
        tp_text_say(c, "step: %s (an evaluation of a ggml graph)", s);
    else if (!strcmp(k, "step_marker"))
        tp_text_say(c, "step: the spans between tprof_step() markers");
    else if (!strcmp(k, "detected_step"))
        tp_text_say(c, "step: detected %s (the repeating op enclosing the most op time)", s);
    else if (!strcmp(k, "op_call"))
        tp_text_say(c, "unit: outermost op call (no step seen: TPROF_STEP names one)");
}

/* ggml's backend buffers live at the heap peak, by what ggml was told they hold, and the buffer
 * types they are of: which part of a ggml program's memory is weights and which the graph's
 * compute. */
static void ggml_buffers_line(struct tp_text_ctx *c, const struct tp_memory *m)
{
    static const char *const usages[] = {"weights", "compute", "any"};
    uint64_t by[3] = {0, 0, 0}, all = 0, n = 0;
    char names[96] = "", parts[200] = "", x[32], y[32];
    for (size_t i = 0; i < m->nggml_buffers; i++) {
        const struct tp_ggml_buffer *g = &m->ggml_buffers[i];
        if (!g->at_peak)
            continue;
        for (int u = 0; u < 3; u++)
            if (g->usage && !strcmp(g->usage, usages[u]))
                by[u] += g->bytes;
        all += g->bytes;
        n++;
        /* the buffer types, each named once */
        const char *name = g->name ? g->name : "?";
        size_t len = strlen(name), at = 0;
        int seen = 0;
        while (names[at] && !seen) {
            seen = !strncmp(names + at, name, len) && (!names[at + len] || names[at + len] == ',');
            const char *comma = strchr(names + at, ',');
            at = comma ? (size_t)(comma - names) + 2 : strlen(names);
        }
        if (!seen && strlen(names) + len + 3 < sizeof names)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     *names ? ", " : "", name);
    }
    if (!n) /* none live at the peak: they say nothing of it */
        return;
    for (int u = 0; u < 3; u++)
        if (by[u])
            snprintf(parts + strlen(parts), sizeof parts - strlen(parts), "%s%s %s",
                     *parts ? ", " : "", u == 2 ? "other" : usages[u],
                     tp_fmt_bytes(by[u], x, sizeof x));
    tp_text_say(c, "ggml backend buffers at the peak: %s in %llu (%s; buffer type%s %s)",
                tp_fmt_bytes(all, y, sizeof y), (unsigned long long)n, parts,
                strchr(names, ',') ? "s" : "", names);
}

/* ---- heap over time ---- */

/* Column k's heap of the series: the largest live figure of the points in its stretch of time
 * (and its persistent floor), or, with none there, the last point's before it: the heap stays
 * where it was until the next sample. */
static void chart_column(const struct tp_memory *m, uint64_t end_ns, int cols, int k, size_t *at,
                         uint64_t *live, uint64_t *floor)
{
    uint64_t hi = (uint64_t)((double)end_ns * (k + 1) / cols);
    int seen = 0;
    while (*at < m->nseries && (m->series[*at].ns < hi || k == cols - 1)) {
        const struct tp_heap_point *p = &m->series[(*at)++];
        if (!seen || p->live_bytes > *live) {
            *live = p->live_bytes;
            *floor = p->persistent_bytes < p->live_bytes ? p->persistent_bytes : p->live_bytes;
        }
        seen = 1;
    }
}

void tp_text_heap_chart(const struct tp_memory *m, uint64_t end_ns, int rows, int cols,
                        struct tp_buf *b)
{
    if (!m->nseries || !m->peak_bytes || rows < 1 || cols < 2 || cols > 200)
        return;
    if (end_ns < m->series[m->nseries - 1].ns)
        end_ns = m->series[m->nseries - 1].ns;
    if (end_ns == 0)
        end_ns = 1;
    uint64_t live[200], floor[200], lv = 0, fl = 0;
    size_t at = 0;
    int peak_col = (int)((double)m->peak_ns * cols / (double)end_ns);
    if (peak_col >= cols)
        peak_col = cols - 1;
    for (int k = 0; k < cols; k++) {
        chart_column(m, end_ns, cols, k, &at, &lv, &fl);
        live[k] = lv;
        floor[k] = m->lifetime_unit ? fl : 0;
    }
    char lab[32], t1[32];
    for (int row = rows; row >= 1; row--) {
        /* a cell is filled when the column's heap reaches at least half of it */
        double level = ((double)row - 0.5) * (double)m->peak_bytes / rows;
        if (row == rows)
            tp_fmt_bytes(m->peak_bytes, lab, sizeof lab);
        else
            lab[0] = 0;
        char line[224];
        int len = 0;
        for (int k = 0; k < cols; k++) {
            char ch = ' ';
            if ((double)live[k] >= level)
                ch = (double)floor[k] >= level ? ':' : '#';
            if (k == peak_col && row == rows)
                ch = '@';
            line[k] = ch;
            if (ch != ' ')
                len = k + 1;
        }
        tp_buf_printf(b, "%10s |%.*s\n", lab, len, line);
    }
    tp_buf_printf(b, "%10s +", "0");
    for (int k = 0; k < cols; k++)
        tp_buf_putc(b, '-');
    tp_fmt_ns(end_ns, t1, sizeof t1);
    tp_buf_printf(b, "\n%12s%-*s%s\n", "", cols - (int)strlen(t1), "0", t1);
}

/* The chart is drawn from this many points of the series on: every run has the peak and the
 * heap at its end, which alone draw no shape; one outermost op call adds two. */
#define CHART_MIN_POINTS 4

static void heap_chart(struct tp_text_ctx *c, const struct tp_memory *m)
{
    if (m->nseries < CHART_MIN_POINTS)
        return;
    if (m->lifetime_unit)
        tp_text_say(c, "heap over time, the most of each column ('@' the peak, ':' persistent, "
                       "'#' transient):");
    else
        tp_text_say(c, "heap over time, the most of each column ('@' the peak):");
    tp_text_heap_chart(m, c->r->program.wall_ns, 8, 72 + (c->extra > 0 ? 0 : c->extra), c->b);
}

/* A report of the sampled heap: which figures are exact and which are estimates. */
static void sampling_line(struct tp_text_ctx *c, const struct tp_memory *m)
{
    char a[32], n[32];
    if (!m->sampling.mean_bytes)
        return;
    tp_fmt_bytes(m->sampling.mean_bytes, a, sizeof a);
    tp_fmt_count(m->sampling.samples, n, sizeof n);
    struct tp_buf t;
    tp_buf_init(&t);
    tp_buf_printf(&t,
                  "sampled heap (TPROF_SAMPLE=%s, seed %llu): %s allocation%s recorded with a "
                  "stack; the counts, peak and live at exit above are exact; every call site's "
                  "figures, the persistent/transient split and the leaks' split are estimated "
                  "(each row says +- what at 95%%)",
                  a, (unsigned long long)m->sampling.seed, n, m->sampling.samples == 1 ? "" : "s");
    tp_text_wrap(c, "", tp_buf_str(&t), 2);
    tp_buf_free(&t);
}

/* A sampled site's row ends with its error: never an estimate that looks exact. room is cut by
 * what it takes. */
static const char *est_tail(const struct tp_site *s, double pct, char *out, size_t n, size_t *room)
{
    out[0] = 0;
    if (!s->est.samples)
        return out;
    snprintf(out, n, "  [estimated, +-%.0f%% at 95%%]", pct < 1 ? 1 : pct);
    size_t k = strlen(out);
    *room = *room > k + 20 ? *room - k : 20;
    return out;
}

/* Of the heap's peak, what outlives its step and what does not; the program's mapped files
 * (weights) stay too. */
static void lifetime_lines(struct tp_text_ctx *c, const struct tp_memory *m, const char *est)
{
    char a[32], b[32], e[32], f[64] = "";
    if (!m->persistent_bytes && !m->transient_bytes)
        return;
    const char *u = tp_lifetime_noun(m);
    tp_fmt_bytes(m->persistent_bytes, a, sizeof a);
    tp_fmt_bytes(m->transient_bytes, b, sizeof b);
    struct tp_ledger_sum ls;
    tp_ledger_sum(m, &ls);
    if (ls.program_files >= TP_LEDGER_FILES_MIN) /* mapped weights stay: persistent too */
        snprintf(f, sizeof f, "; mapped files add %s persistent at the RSS peak",
                 tp_fmt_bytes(ls.program_files, e, sizeof e));
    tp_text_say(c,
                "at the peak: %s%s persistent (outlive their %s), %s transient (freed within it)%s",
                est, a, u, b, f);
    if (c->full)
        lifetime_unit_line(c, m);
}

void tp_text_memory(struct tp_text_ctx *c)
{
    const struct tp_memory *m = &c->r->memory;
    char a[32], b[32], d[32], e[32];
    const char *est = m->sampling.mean_bytes ? "estimated: " : "";
    tp_text_heading(c, m->sampling.mean_bytes ? "MEMORY (heap: peak and live in usable sizes)"
                                              : "MEMORY (heap: sizes as requested)");
    tp_fmt_bytes(m->peak_rss_bytes, d, sizeof d);
    if (m->allocs == 0 && m->peak_bytes == 0) {
        if (m->peak_rss_bytes)
            tp_text_say(c, "no heap allocation was seen; peak RSS %s", d);
        else
            tp_text_say(c, "no heap allocation was seen");
        tp_text_ledger(c, m);
        return;
    }
    tp_fmt_bytes(m->peak_bytes, a, sizeof a);
    tp_fmt_ns(m->peak_ns, b, sizeof b);
    char inside[300] = "";
    if (m->peak_op)
        snprintf(inside, sizeof inside, ", inside %s", m->peak_op);
    if (m->peak_rss_bytes)
        tp_text_say(c, "peak heap %s at %s into the run%s; peak RSS %s", a, b, inside, d);
    else
        tp_text_say(c, "peak heap %s at %s into the run%s", a, b, inside);
    tp_text_ledger(c, m);
    lifetime_lines(c, m, est);
    ggml_buffers_line(c, m);
    tp_fmt_count(m->allocs, a, sizeof a);
    tp_fmt_count(m->frees, b, sizeof b);
    tp_fmt_bytes(m->bytes_allocated, d, sizeof d);
    tp_fmt_ns(m->alloc_ns, e, sizeof e);
    if (c->full)
        tp_text_say(c, "%s allocation%s, %s free%s, %s requested in all, ~%s inside the allocator",
                    a, m->allocs == 1 ? "" : "s", b, m->frees == 1 ? "" : "s", d, e);
    struct tp_buf t;
    tp_buf_init(&t);
    tp_fmt_bytes(m->live_at_exit_bytes, a, sizeof a);
    if (m->live_at_exit_bytes || m->live_at_exit_allocs) {
        struct tp_leak_split ls;
        tp_leak_split(m, &ls);
        tp_buf_printf(&t, "live at exit: %s in %llu block%s", a,
                      (unsigned long long)m->live_at_exit_allocs,
                      m->live_at_exit_allocs == 1 ? "" : "s");
        if (ls.system_bytes || ls.suppressed_bytes || ls.interpreter_bytes) {
            tp_buf_printf(&t, " (%sthe program's %s", est,
                          tp_fmt_bytes(ls.program_bytes, b, sizeof b));
            if (ls.interpreter_bytes)
                tp_buf_printf(&t, ", the interpreter's %s",
                              tp_fmt_bytes(ls.interpreter_bytes, b, sizeof b));
            tp_buf_printf(
                &t, ", system libraries' %s%s%s)", tp_fmt_bytes(ls.system_bytes, d, sizeof d),
                ls.suppressed_bytes ? ", suppressed " : "",
                ls.suppressed_bytes ? tp_fmt_bytes(ls.suppressed_bytes, e, sizeof e) : "");
        }
    } else {
        tp_buf_puts(&t, "live at exit: nothing");
    }
    if (m->unknown_frees)
        tp_buf_printf(&t, "; %llu free%s of %s tprof never saw (passed through)",
                      (unsigned long long)m->unknown_frees, m->unknown_frees == 1 ? "" : "s",
                      m->unknown_frees == 1 ? "a block" : "blocks");
    if (m->failed_allocs)
        tp_buf_printf(&t, "; %llu failed allocation%s", (unsigned long long)m->failed_allocs,
                      m->failed_allocs == 1 ? "" : "s");
    if (c->full) /* the short report's verdict says what is left at exit */
        tp_text_wrap(c, "", tp_buf_str(&t), 2);
    tp_buf_free(&t);
    sampling_line(c, m);
    if (c->full)
        heap_chart(c, m);
}

/* "f (a.c:3) < g (b.c:9) < main (m.c:1)" cut to room columns. */
/* Without source lines, two sites allocating from different places of one function look the
 * same (darknet's make_convolutional_layer in Debian's libdarknet.so): is there such a twin? */
static int has_twin(const struct tp_memory *m, const struct tp_site *s)
{
    if (!s->nframes || !s->frames[0].function || (s->frames[0].file && s->frames[0].line > 0))
        return 0;
    const struct tp_frame *f = &s->frames[0];
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *o = &m->sites[i];
        if (o == s || !o->nframes)
            continue;
        const struct tp_frame *g = &o->frames[0];
        if (g->function && !strcmp(g->function, f->function) && g->offset != f->offset &&
            ((!g->module && !f->module) ||
             (g->module && f->module && !strcmp(g->module, f->module))))
            return 1;
    }
    return 0;
}

/* A site's stack on one line; with_offset adds the allocating frame's module offset (has_twin). */
static void chain(const struct tp_site *s, char *out, size_t n, size_t room, int with_offset)
{
    if (s->nframes == 0) {
        tp_fmt_fit("(no stack)", room, out, n);
        return;
    }
    struct tp_buf t;
    tp_buf_init(&t);
    /* Inline code of system headers (std::vector's allocator...) would fill the row before the
     * program's line that called it: counted, not written (the JSON report has them). */
    size_t first = tp_site_first_own(s);
    if (first)
        tp_buf_printf(&t, "[%zu inlined] ", first);
    for (size_t i = first; i < s->nframes; i++) {
        char fr[600];
        const struct tp_frame *f = &s->frames[i];
        if (i == first && with_offset && f->function) {
            snprintf(fr, sizeof fr, "%s (%s+0x%llx)", f->function, tp_base_name(f->module, "?"),
                     (unsigned long long)f->offset);
        } else {
            tp_fmt_frame(f, fr, sizeof fr);
        }
        tp_buf_printf(&t, "%s%s", i > first ? " < " : "", fr);
        /* What called main is the C runtime: noise in a one-line site. */
        if (s->frames[i].function && !strcmp(s->frames[i].function, "main"))
            break;
        if (t.len > room * 4 + 16)
            break;
    }
    tp_fmt_fit(tp_buf_str(&t), room, out, n);
    tp_buf_free(&t);
}

static int by_at_peak(const void *a, const void *b)
{
    const struct tp_site *x = *(const struct tp_site *const *)a,
                         *y = *(const struct tp_site *const *)b;
    int c = tp_site_cmp_importance(x, y);
    if (c)
        return c;
    return x < y ? -1 : x > y;
}

static int by_leak(const void *a, const void *b)
{
    const struct tp_site *x = *(const struct tp_site *const *)a,
                         *y = *(const struct tp_site *const *)b;
    if (x->live_at_exit_bytes != y->live_at_exit_bytes)
        return x->live_at_exit_bytes < y->live_at_exit_bytes ? 1 : -1;
    if (x->live_at_exit_allocs != y->live_at_exit_allocs)
        return x->live_at_exit_allocs < y->live_at_exit_allocs ? 1 : -1;
    return x < y ? -1 : x > y;
}

/* The site's frames in line, cut to room columns, after "[lib] " when system libraries alone
 * allocated it (returns 1 then), or after what its memory is: "[tensor data (torch)] ". */
static int site_label(const struct tp_memory *m, const struct tp_site *s, char *line, size_t n,
                      size_t room)
{
    char tag[64] = "";
    if (s->system)
        snprintf(tag, sizeof tag, "[lib] ");
    else if (tp_site_role_name(s->role))
        snprintf(tag, sizeof tag, "[%s] ", tp_site_role_name(s->role));
    size_t k = strlen(tag);
    chain(s, line + k, n - k, room > k + 20 ? room - k : 20, has_twin(m, s));
    memcpy(line, tag, k);
    return s->system;
}

/* CALL SITES: the sites live at the heap peak (v sorted by by_at_peak). */
static void sites_at_peak(struct tp_text_ctx *c, const struct tp_site **v)
{
    const struct tp_memory *m = &c->r->memory;
    /* --wide: a stack whole, past the width */
    size_t room = c->wide ? WIDE_ROOM : (size_t)c->width - 43, held = 0;
    char h[5][128], line[2048];
    for (size_t i = 0; i < m->nsites; i++)
        held += v[i]->live_at_peak_bytes || v[i]->peak_live_bytes;
    if (!held)
        return;
    /* under MEMORY in the short report, which has no room for another heading */
    if (c->full)
        tp_text_heading(c, "CALL SITES holding the peak (frames[0] called the allocator)");
    tp_buf_printf(c->b, "%s %s %s %s  %s\n", tp_text_right(h[0], 128, "at peak", 10),
                  tp_text_right(h[1], 128, "own peak", 10), tp_text_right(h[2], 128, "allocs", 8),
                  tp_text_right(h[3], 128, "bytes", 10),
                  c->full ? "site" : "call site holding the peak (frame 0 allocated)");
    size_t shown = 0, marked_sites = 0;
    size_t rows = c->full || c->top < SHORT_SITES ? (size_t)c->top : SHORT_SITES;
    for (size_t i = 0; i < m->nsites && shown < rows; i++) {
        const struct tp_site *s = v[i];
        if (!s->live_at_peak_bytes && !s->peak_live_bytes)
            continue;
        char a[32], p[32], n[32], t[32];
        tp_fmt_bytes(s->live_at_peak_bytes, a, sizeof a);
        tp_fmt_bytes(s->peak_live_bytes, p, sizeof p);
        tp_fmt_count(s->allocs, n, sizeof n);
        tp_fmt_bytes(s->bytes, t, sizeof t);
        char tail[64];
        size_t r = room;
        est_tail(s, s->est.error_pct, tail, sizeof tail, &r);
        marked_sites += site_label(m, s, line, sizeof line, r);
        tp_buf_printf(c->b, "%s %s %s %s  %s%s\n", tp_text_right(h[0], 128, a, 10),
                      tp_text_right(h[1], 128, p, 10), tp_text_right(h[2], 128, n, 8),
                      tp_text_right(h[3], 128, t, 10), line, tail);
        shown++;
    }
    if (!c->full) { /* one line: how the JSON keeps the rest is the full report's to say */
        uint64_t all = m->nsites_total > held ? m->nsites_total : held;
        if (all > shown)
            tp_text_say(c, "(%llu more site%s in the full report and the JSON)",
                        (unsigned long long)(all - shown), all - shown == 1 ? "" : "s");
    } else if (m->nsites_total > m->nsites && c->r->merged_processes > 1)
        tp_text_say(c,
                    "(up to %llu sites in all: the processes' sites left out of their JSON "
                    "reports may repeat; the merged report keeps %zu)",
                    (unsigned long long)m->nsites_total, m->nsites);
    else if (m->nsites_total > m->nsites && m->nrollups)
        tp_text_say(c,
                    "(%llu sites in all; the JSON report keeps the %zu largest by each measure "
                    "one by one and rolls the other %llu up into %zu rows per function and module)",
                    (unsigned long long)m->nsites_total, m->nsites,
                    (unsigned long long)(m->nsites_total - m->nsites), m->nrollups);
    else if (m->nsites_total > m->nsites)
        tp_text_say(c, "(%llu sites in all; the JSON report keeps the %zu largest)",
                    (unsigned long long)m->nsites_total, m->nsites);
    else if (held > shown)
        tp_text_say(c, "(%zu more site%s in the JSON report)", held - shown,
                    held - shown == 1 ? "" : "s");
    if (marked_sites && !c->full)
        tp_text_say(c, "[lib]: a system library's own keeping, not the program's data");
    else if (marked_sites)
        tp_text_say(c, "[lib]: a system library's own keeping (start-up constructors, stdio "
                       "buffers, thread-local storage, runtime caches), not the program's data");
}

/* What the system libraries keep, in a few words each, the largest first: "libgfortran, ld.so
 * TLS, stdio buffer". v is sorted by by_leak. */
static void kept_by(const struct tp_memory *m, const struct tp_site **v, struct tp_buf *out)
{
    char seen[6][64];
    size_t n = 0, more = 0;
    for (size_t i = 0; i < m->nsites && v[i]->live_at_exit_bytes; i++) {
        if (!v[i]->system || v[i]->suppressed)
            continue;
        char what[64];
        tp_site_system_what(v[i], what, sizeof what);
        size_t k = 0;
        while (k < n && strcmp(seen[k], what))
            k++;
        if (k < n)
            continue;
        if (n == sizeof seen / sizeof seen[0]) {
            more = 1;
            continue;
        }
        memcpy(seen[n++], what, sizeof what);
        tp_buf_printf(out, "%s%s", n > 1 ? ", " : "", what);
    }
    if (more)
        tp_buf_puts(out, ", ...");
}

/* LEAKS: the program's sites still live at exit, one row each (v sorted by by_leak); what system
 * libraries keep and what TPROF_SUPPRESS suppressed, one line each. */
static void leaks(struct tp_text_ctx *c, const struct tp_site **v)
{
    const struct tp_memory *m = &c->r->memory;
    size_t room = c->wide ? WIDE_ROOM : (size_t)c->width - 21, leaking = 0, shown = 0;
    char h[2][128], line[2048], a[32];
    struct tp_leak_split ls;
    tp_leak_split(m, &ls);
    if (c->full) /* the short report: under MEMORY, as its call sites */
        tp_text_heading(c, m->sampling.mean_bytes
                               ? "LEAKS (still allocated at exit; by site: estimated from samples)"
                               : "LEAKS (still allocated at exit)");
    for (size_t i = 0; i < m->nsites && v[i]->live_at_exit_bytes; i++) {
        if (v[i]->system || v[i]->suppressed || v[i]->interpreter)
            continue;
        if (!leaking++)
            tp_buf_printf(c->b, "%s %s  %s\n", tp_text_right(h[0], 128, "bytes", 10),
                          tp_text_right(h[1], 128, "blocks", 8),
                          c->full ? "site" : "the program's leaks (still allocated at exit)");
        if (shown >= (c->full || c->top < SHORT_LEAKS ? (size_t)c->top : SHORT_LEAKS))
            continue;
        char n[32];
        tp_fmt_bytes(v[i]->live_at_exit_bytes, a, sizeof a);
        tp_fmt_count(v[i]->live_at_exit_allocs, n, sizeof n);
        char tail[64];
        size_t r = room;
        est_tail(v[i], v[i]->est.live_error_pct, tail, sizeof tail, &r);
        chain(v[i], line, sizeof line, r, has_twin(m, v[i]));
        tp_buf_printf(c->b, "%s %s  %s%s\n", tp_text_right(h[0], 128, a, 10),
                      tp_text_right(h[1], 128, n, 8), line, tail);
        shown++;
    }
    if (leaking > shown)
        tp_text_say(c, "(%zu more leaking site%s in the JSON report)", leaking - shown,
                    leaking - shown == 1 ? "" : "s");
    if (!leaking && ls.program_bytes)
        tp_text_say(c, "%s: %s in %llu block%s; their call sites are not in this report",
                    c->full ? "the program" : "the program's leaks at exit",
                    tp_fmt_bytes(ls.program_bytes, a, sizeof a),
                    (unsigned long long)ls.program_allocs, ls.program_allocs == 1 ? "" : "s");
    else if (!leaking)
        tp_text_say(c, "the program: nothing");
    if (!c->full) /* the verdict says what the system libraries keep */
        return;
    if (ls.system_bytes) {
        struct tp_buf t;
        tp_buf_init(&t);
        tp_buf_printf(&t, "system libraries keep %s in %llu block%s",
                      tp_fmt_bytes(ls.system_bytes, a, sizeof a),
                      (unsigned long long)ls.system_allocs, ls.system_allocs == 1 ? "" : "s");
        size_t at = t.len;
        tp_buf_puts(&t, " (");
        kept_by(m, v, &t);
        if (t.len == at + 2)
            t.len = at; /* none of them is among the report's sites */
        else
            tp_buf_putc(&t, ')');
        tp_buf_puts(&t, ": kept on purpose, not the program's leak (their sites are in the JSON "
                        "report, \"system\": true)");
        tp_text_wrap(c, "", tp_buf_str(&t), 2);
        tp_buf_free(&t);
    }
    if (ls.interpreter_bytes)
        tp_text_say(c,
                    "kept by the interpreter at exit: %s in %llu block%s (its objects and its "
                    "modules' state, not freed when it exits), not the program's leak "
                    "(\"interpreter\": true)",
                    tp_fmt_bytes(ls.interpreter_bytes, a, sizeof a),
                    (unsigned long long)ls.interpreter_allocs,
                    ls.interpreter_allocs == 1 ? "" : "s");
    if (ls.suppressed_bytes)
        tp_text_say(c, "suppressed (TPROF_SUPPRESS): %s in %llu block%s at %zu site%s",
                    tp_fmt_bytes(ls.suppressed_bytes, a, sizeof a),
                    (unsigned long long)ls.suppressed_allocs, ls.suppressed_allocs == 1 ? "" : "s",
                    ls.suppressed_sites, ls.suppressed_sites == 1 ? "" : "s");
}

void tp_text_sites(struct tp_text_ctx *c)
{
    const struct tp_memory *m = &c->r->memory;
    const struct tp_site **v = NULL;
    if (m->nsites) {
        v = malloc(m->nsites * sizeof *v);
        if (!v)
            return;
        for (size_t i = 0; i < m->nsites; i++)
            v[i] = &m->sites[i];
        qsort(v, m->nsites, sizeof *v, by_at_peak);
        sites_at_peak(c, v);
        qsort(v, m->nsites, sizeof *v, by_leak);
    }
    struct tp_leak_split ls;
    tp_leak_split(m, &ls);
    /* the short report: only the program's own leaks, and only when it has some */
    if (m->live_at_exit_bytes && (c->full || ls.program_bytes))
        leaks(c, v);
    free(v);
}
