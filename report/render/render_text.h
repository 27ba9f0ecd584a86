/* What the text report's files share (report/render/render_text.c: header, ops, steps, verdict,
 * outputs; report/render/render_text_memory.c: memory, call sites, leaks; report/render/render_text_layout.c:
 * the helpers that wrap and align text): the layout context and those helpers. */
#ifndef TPROF_RENDER_TEXT_H
#define TPROF_RENDER_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "report/report.h"

#define BASE_WIDTH 100 /* the width the tables are laid out for */

struct tp_text_ctx {
    const struct tp_report *r;
    struct tp_buf *b;
    int width, top;
    int extra; /* width - BASE_WIDTH: added to the first column of each table */
    int full;  /* 1: every section and note; 0: the short report, which ends with the verdict */
    int wide;  /* C++ names unfolded and call sites' stacks whole (tprof report --wide) */
    uint64_t program_ns; /* what shares are of: wall time, times N for a merged report */
};

/* A column laid out as `base` wide at BASE_WIDTH, widened or narrowed with the report. */
size_t tp_text_col(const struct tp_text_ctx *c, int base);
/* A section title followed by dashes to the width. */
void tp_text_heading(struct tp_text_ctx *c, const char *title);
/* A paragraph wrapped at the width: the first line after prefix, the others indented. Words
 * longer than a line are cut. */
void tp_text_wrap(struct tp_text_ctx *c, const char *prefix, const char *text, int indent);
/* One line of free text built with printf, wrapped at the width with an indent of 2. */
/* argv as a shell would take it back: words with unusual characters in single quotes. */
void tp_text_command_line(const struct tp_program *p, struct tp_buf *t);
void tp_text_say(struct tp_text_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The first cell of a table's row, naming an op in w columns: the name when it fits; else the
 * name is written whole on a line of its own (to c->b, at once) and the cell is blank, so that a
 * name is never cut. Call it before the row's other output. */
const char *tp_text_name(struct tp_text_ctx *c, const char *name, size_t w, char *out, size_t n);
/* A right-aligned cell of w columns in out. */
const char *tp_text_right(char *out, size_t n, const char *s, size_t w);

/* A latency table's header (first: the first column's title) and one row of it. */
void tp_text_latency_head(struct tp_text_ctx *c, const char *first);
void tp_text_latency_row(struct tp_text_ctx *c, const char *label, uint64_t warm,
                         const struct tp_latency *l);
/* A figure in ns held as a double, rounded; 0 for NaN and below. */
uint64_t tp_text_ns_of(double v);
/* The VERDICT section, and the Amdahl table of the full report
 * (report/render/render_text_verdict.c). */
void tp_text_verdict(struct tp_text_ctx *c);
void tp_text_amdahl(struct tp_text_ctx *c);
/* The notes: each whole, or in the short report one line each (report/render/render_text_notes.c). */
void tp_text_notes(struct tp_text_ctx *c);
/* The STEPS section (report/render/render_text_steps.c); one line in the short report. */
void tp_text_steps(struct tp_text_ctx *c);
/* The WORK AND WAIT table of the ops whose threads waited (report/render/render_text_wait.c). */
void tp_text_waits(struct tp_text_ctx *c);

/* The MEMORY section and the CALL SITES and LEAKS tables (report/render/render_text_memory.c). */
void tp_text_memory(struct tp_text_ctx *c);
/* The GPU section (report/render/render_text_gpu.c), for a program that made CUDA driver calls. */
void tp_text_gpu(struct tp_text_ctx *c);
/* The memory ledger's lines (report/render/render_text_ledger.c); nothing without one. */
void tp_text_ledger(struct tp_text_ctx *c, const struct tp_memory *m);
void tp_text_sites(struct tp_text_ctx *c);

/* The heap over time of m's series as rows + 1 lines of text, cols columns of time from 0 to
 * end_ns (the last point's time when later), a 10-column label and " |" before them: '#'
 * transient, ':' persistent, '@' the peak's column at the top row (report/render/render_text_memory.c). */
void tp_text_heap_chart(const struct tp_memory *m, uint64_t end_ns, int rows, int cols,
                        struct tp_buf *b);

#endif
