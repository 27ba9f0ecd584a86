/* The memory ledger in the text report (memory.ledger, track/heap/ledger.c records it): the line
 * of what the peak RSS is made of, the allocator's retention, and in the full report every row. */
#include <stdio.h>
#include <string.h>

#include "report/analyze/analyze.h"
#include "report/render/render_text.h"
#include "report/units.h"

/* What the peak RSS is made of, in one line; the full report lists every row, each file and
 * call site of the program's mappings with where it was mapped. */
void tp_text_ledger(struct tp_text_ctx *c, const struct tp_memory *m)
{
    if (!m->nledger)
        return;
    struct tp_buf t;
    tp_buf_init(&t);
    tp_ledger_line(m, &t);
    tp_text_wrap(c, "", tp_buf_str(&t), 2);
    t.len = 0;
    if (tp_ledger_retention(m, &t))
        tp_text_wrap(c, "", tp_buf_str(&t), 2);
    tp_buf_free(&t);
    if (!c->full)
        return;
    char a[32], b[32], at[600];
    tp_text_say(c,
                "RSS at its highest reading, %s into the run (%llu reading%s of "
                "/proc/self/smaps):",
                tp_fmt_ns(m->peak_rss_ns, a, sizeof a), (unsigned long long)m->ledger_reads,
                m->ledger_reads == 1 ? "" : "s");
    tp_buf_puts(c->b, "  resident     mapped  part         what\n");
    for (size_t i = 0; i < m->nledger; i++) {
        const struct tp_ledger_row *r = &m->ledger[i];
        const struct tp_mapping *mp =
            r->mapping >= 0 && (size_t)r->mapping < m->nmappings ? &m->mappings[r->mapping] : NULL;
        snprintf(at, sizeof at, "%s", r->name ? r->name : "?");
        if (mp && mp->nframes && r->kind && !strcmp(r->kind, "file")) {
            char f[400];
            snprintf(at + strlen(at), sizeof at - strlen(at), ", mapped at %s",
                     tp_fmt_frame(&mp->frames[0], f, sizeof f));
        }
        tp_buf_printf(c->b, "%10s %10s  %-12s %s\n", tp_fmt_bytes(r->resident_bytes, a, sizeof a),
                      tp_fmt_bytes(r->mapped_bytes, b, sizeof b), r->kind ? r->kind : "?", at);
    }
}
