/* Analysis and renderers of the report model (report/analyze/analyze.c, report/render/render_json.c,
 * report/render/render_text.c). Used by the library at exit and by the CLI alike. */
#ifndef TPROF_RENDER_H
#define TPROF_RENDER_H

#include "common/buf.h"
#include "report/report.h"

/* Fill every derived field: per op gflops, intensity, attainable, bound, efficiency, share,
 * self_share; the verdict (dominant op, bound, efficiency, plain-words text) and Amdahl
 * projections. Idempotent; needs only the raw figures and r->machine. */
void tp_analyze(struct tp_report *r);
/* The verdict's time outside every op (outside_ops_ns, threads_wall_ns, threads_time_ns): denom
 * is the program's time (the processes' side by side when merged), wall_sum the ops' self
 * wall-clock times summed, for reports without the threads' figures. */
void tp_outside_ops(struct tp_report *r, uint64_t denom, uint64_t wall_sum);
/* What the time outside every op, summed over threads, counts of each thread, in words for the
 * line that says it; NULL when it counts every thread's whole life (threads_time_ns 0).
 * *estimate is set when the figure is estimated from CPU samples (the line marks it "~"). */
const char *tp_outside_basis(const struct tp_report *r, int *estimate);
/* One op's roofline figures against the given peaks (0 = unknown), and its shares of wall. */
void tp_op_roofline(struct tp_op *o, double peak_gflops, double peak_gbps, uint64_t wall_ns);
/* Whole-program speed-up when a part taking `share` of the time runs `factor` times faster
 * (INFINITY: takes no time). share is a wall-clock share, at most 1: at 1 and INFINITY there is
 * no bound, and the result is 0. */
double tp_amdahl(double share, double factor);

/* The JSON report (schema in docs/tprof.schema.json). */
void tp_render_json(const struct tp_report *r, struct tp_buf *b);

/* A JSON string literal (null for NULL), escaped as the report writer does it. */
void tp_json_str(struct tp_buf *b, const char *s);

/* Folded stacks ("frame;frame;frame value" per line, outermost frame first) for flamegraph.pl,
 * speedscope and inferno. TP_FOLDED_TIME: op stacks, value = self time in ns, plus a line for
 * the wall time outside any op; needs r->opstacks. TP_FOLDED_HEAP: call sites from main, value =
 * bytes live at the heap peak, with the rest of the peak on one line so that the lines add up to
 * the peak. A first '#' line states the unit. Returns the number of lines after it. */
enum tp_folded_kind { TP_FOLDED_TIME, TP_FOLDED_HEAP };
size_t tp_render_folded(const struct tp_report *r, enum tp_folded_kind kind, struct tp_buf *b);
/* Where a heap site's flame-graph stack starts, for every drawing of one: frames[*top] (the
 * outermost main, else the outermost frame) down to frames[0]; *partial is 1 when the stack
 * reaches neither main nor a process, thread or loader root (it was cut: draw it under a
 * "[partial stack]" frame). */
void tp_site_flame_top(const struct tp_site *s, size_t *top, int *partial);

/* Whether tprof's own hooks inside the ops (program.hooks_ns) are worth a line of the text and
 * HTML reports, against the time the percentages are of (program_ns): from 0.1% of it, the
 * precision the reports give a percentage to; below, the line would say "0.0%" of nothing the
 * user can act on, while the JSON report keeps the figure. */
static inline int tp_hooks_worth_saying(uint64_t hooks_ns, uint64_t program_ns)
{
    return hooks_ns && program_ns && (double)hooks_ns >= 0.001 * (double)program_ns;
}

struct tp_text_opts {
    int top;   /* rows per section */
    int width; /* columns, 100 */
    int full;  /* 1: every section (TPROF_DETAIL=full); 0: the short report */
    int term;  /* the terminal's columns, 0 when not a terminal: past width, the name column
                * grows to the op names shown, up to it */
    int wide;  /* C++ names unfolded and call sites' stacks whole (tprof report --wide) */
};
/* The line on where the CPU-time samples outside every op landed, by function (the text's
 * verdict and the HTML page both say it; report/render/render_text_verdict.c): appended to out,
 * 1 when there is one. */
int tp_outside_samples_line(const struct tp_report *r, struct tp_buf *out);
/* The text report: header, ops, latency, shapes, steps, verdict, memory, call sites, leaks. */
void tp_render_text(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b);

/* The HTML report: one self-contained page (tables, and charts drawn by its inline script from
 * the JSON report it embeds); top: rows per table section, as the text report's. */
void tp_render_html(const struct tp_report *r, int top, struct tp_buf *b);

#endif
