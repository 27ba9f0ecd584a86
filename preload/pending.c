/* TEMPORARY: weak fallbacks so the core links while the other parts land. Deleted once ops.c,
 * the renderers, peaks.c and the name hooks are in. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "internal.h"
#include "ops.h"
#include "render.h"
#include "report.h"

#define W __attribute__((weak))
W void tp_ops_init(void) {}
W void tp_ops_fork_child(void) {}
W void tp_ops_on_alloc(size_t b) { (void)b; }
W int tp_ops_current(void) { return -1; }
W const char *tp_ops_name(int id) { (void)id; return NULL; }
W uint64_t tp_ops_first_ns(void) { return 0; }
W void tp_ops_collect(struct tp_report *r) { (void)r; }
W void tp_names_init(void) {}
W int tp_peaks_resolve(struct tp_machine *m, double g, double b) { (void)g; (void)b; m->source = strdup("none"); return 0; }
W void tp_analyze(struct tp_report *r) { (void)r; }
W void tp_render_text(const struct tp_report *r, const struct tp_text_opts *o, struct tp_buf *b) { (void)r; (void)o; (void)b; }
W void tp_render_json(const struct tp_report *r, struct tp_buf *b)
{
    const struct tp_memory *m = &r->memory;
    tp_buf_printf(b, "{\"memory\": {\"peak_bytes\": %lu, \"allocs\": %lu, \"frees\": %lu, \"live_at_exit_bytes\": %lu, \"unknown_frees\": %lu, \"sites\": [\n",
        m->peak_bytes, m->allocs, m->frees, m->live_at_exit_bytes, m->unknown_frees);
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        tp_buf_printf(b, "%s{\"allocs\": %lu, \"frees\": %lu, \"bytes\": %lu, \"peak_live_bytes\": %lu, \"live_at_peak_bytes\": %lu, \"live_at_exit_bytes\": %lu, \"frames\": [",
            i ? ",\n" : "", s->allocs, s->frees, s->bytes, s->peak_live_bytes, s->live_at_peak_bytes, s->live_at_exit_bytes);
        for (size_t j = 0; j < s->nframes; j++)
            tp_buf_printf(b, "%s{\"function\": \"%s\", \"file\": \"%s\", \"line\": %d, \"module\": \"%s\"}", j ? ", " : "",
                s->frames[j].function ? s->frames[j].function : "", s->frames[j].file ? s->frames[j].file : "", s->frames[j].line, s->frames[j].module ? s->frames[j].module : "");
        tp_buf_puts(b, "]}");
    }
    tp_buf_puts(b, "]}}\n");
}
