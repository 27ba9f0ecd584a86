/* The figures of `tprof diff` and how they are shown, shared by its sections (cli/diff/diff.c for
 * ops and call sites, cli/diff/diff_rollup.c for functions): a value on each side, the text grid of a
 * 20-column label and four 20-column cells, and the JSON object of one figure. */
#ifndef TPROF_DIFF_GRID_H
#define TPROF_DIFF_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct json_object;

#define TP_DGRID_LABEL 20
#define TP_DGRID_CELL  20

/* One figure on both sides. Integers are kept exact; GFLOP/s is a double, unknown on a side
 * where the op's FLOPs are (then shown as "-" and left out of the change). An integer figure
 * marked unknown has no change: a call site one report rolled up, whose own figure there is not
 * known. */
struct tp_dfig {
    int has_a, has_b;
    int is_dbl, unknown;
    uint64_t a, b;
    double da, db;
};

enum tp_dunit { TP_DU_COUNT, TP_DU_NS, TP_DU_BYTES, TP_DU_GFLOPS };

static inline struct tp_dfig tp_dfig_u(int has_a, uint64_t a, int has_b, uint64_t b)
{
    return (struct tp_dfig){has_a, has_b, 0, 0, has_a ? a : 0, has_b ? b : 0, 0, 0};
}

/* One side's value (after: 0 before, 1 after) or the change, as a cell's text. */
void tp_dgrid_side(const struct tp_dfig *f, enum tp_dunit u, int after, char *out, size_t n);
void tp_dgrid_change(const struct tp_dfig *f, enum tp_dunit u, char *out, size_t n);
/* A section title ruled to the full width, as the text report does. */
void tp_dgrid_heading(struct tp_buf *b, const char *title);
/* One row of the grid: a label and up to four cells. */
void tp_dgrid_row(struct tp_buf *b, const char *label, char cells[][40], int ncells);
/* The before, after and change rows of one item: figs[i] in column i with unit units[i]. */
void tp_dgrid_rows(struct tp_buf *b, const struct tp_dfig *figs, const enum tp_dunit *units, int n);
/* {"before", "after", "delta", "pct"} (docs/cli.md), a new json-c object. */
struct json_object *tp_dfig_json(const struct tp_dfig *f);

#endif
