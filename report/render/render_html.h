/* What the HTML page's files share (report/render/render_html.c: the page; html_cells.c: its
 * cells; html_tables.c: the tables that match the text report's). */
#ifndef TPROF_RENDER_HTML_H
#define TPROF_RENDER_HTML_H

#include <stddef.h>

#include "common/buf.h"
#include "report/report.h"

/* Text as HTML: the five characters that mean something escaped; invalid UTF-8 replaced. */
void tp_html_esc(struct tp_buf *b, const char *s);
/* A number cell: shown as text, sorted by the exact value v. */
void tp_html_num(struct tp_buf *b, double v, const char *text);
/* A text cell, left-aligned. */
void tp_html_text(struct tp_buf *b, const char *s);
/* An op's name as the tables show it (tp_name_short), the full one on hover. */
void tp_html_name(struct tp_buf *b, const char *name);
/* A table's header row and the start of its body. */
void tp_html_head(struct tp_buf *b, const char *const *h, size_t n);
/* A call site's stack, from its first own frame, in a cell. */
void tp_html_site(struct tp_buf *b, const struct tp_site *s);

/* The tables that match the text report's (report/render/html_tables.c): Amdahl; per process,
 * for a merged report; the steps' summary; the call sites holding the heap peak; the memory
 * ledger. top: rows. */
void tp_html_amdahl(const struct tp_report *r, struct tp_buf *b, int top);
void tp_html_procs(const struct tp_report *r, struct tp_buf *b, int top);
void tp_html_steps(const struct tp_report *r, struct tp_buf *b);
void tp_html_sites(const struct tp_report *r, struct tp_buf *b, int top);
/* The memory ledger: the parts of the resident memory at its highest reading; nothing without. */
void tp_html_ledger(const struct tp_report *r, struct tp_buf *b);
/* The GPU section (report/render/html_gpu.c), for a program that made CUDA driver calls. */
void tp_html_gpu(const struct tp_report *r, struct tp_buf *b, int top);

#endif
