/* The memory ledger in words (see report/analyze/analyze.h): the one line that says what the
 * peak RSS is made of, the advice when the allocator keeps much of it, and the verdict's
 * sentence. The rows come from the recorder (track/heap/ledger.c); here they are only summed by
 * part, so that the text report, the verdict and `tprof report` say the same. */
#include <stdio.h>
#include <string.h>

#include "common/out/out.h"
#include "report/analyze/analyze.h"
#include "report/units.h"

static const char *const kinds[TP_LEDGER_KINDS] = {"heap",      "allocator", "file",
                                                   "anonymous", "stacks",    "libraries",
                                                   "tprof",     "other",     "unexplained"};

void tp_ledger_sum(const struct tp_memory *m, struct tp_ledger_sum *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < m->nledger; i++) {
        const struct tp_ledger_row *r = &m->ledger[i];
        for (int k = 0; r->kind && k < TP_LEDGER_KINDS; k++)
            if (!strcmp(r->kind, kinds[k]))
                s->part[k] += r->resident_bytes;
        s->total += r->resident_bytes;
        if (r->kind && !strcmp(r->kind, "allocator") && r->name &&
            !strcmp(r->name, TP_LEDGER_RETAINED))
            s->retained += r->resident_bytes;
        if (r->kind && !strcmp(r->kind, "libraries"))
            s->libs = r;
        if (r->kind && !strcmp(r->kind, "anonymous") &&
            (!s->anon || r->resident_bytes > s->anon->resident_bytes))
            s->anon = r;
        if (r->kind && !strcmp(r->kind, "file") && r->mapping >= 0)
            s->program_files += r->resident_bytes;
        if (r->kind && !strcmp(r->kind, "file") && r->resident_bytes) {
            if (!s->file[0] || r->resident_bytes > s->file[0]->resident_bytes) {
                s->file[1] = s->file[0];
                s->file[0] = r;
            } else if (!s->file[1] || r->resident_bytes > s->file[1]->resident_bytes) {
                s->file[1] = r;
            }
        }
    }
}

/* v in the unit of the total (MiB below 1 GiB, GiB below 1 TiB), one decimal. */
static double in_unit(uint64_t v, uint64_t total)
{
    double u = total >= (1ull << 40)   ? 1099511627776.0
               : total >= (1ull << 30) ? 1073741824.0
                                       : 1048576.0;
    return (double)v / u;
}

static const char *unit_of(uint64_t total)
{
    return total >= (1ull << 40) ? "TiB" : total >= (1ull << 30) ? "GiB" : "MiB";
}

static void part(struct tp_buf *t, const char *name, uint64_t v, uint64_t total, int always)
{
    double x = in_unit(v, total);
    if (x < 0.05 && !always)
        return;
    tp_buf_printf(t, " + %s %.1f", name, x);
}

void tp_ledger_line(const struct tp_memory *m, struct tp_buf *t)
{
    struct tp_ledger_sum s;
    tp_ledger_sum(m, &s);
    uint64_t total = s.total;
    tp_buf_printf(t, "peak RSS %.1f %s =", in_unit(total, total), unit_of(total));
    size_t at = t->len;
    part(t, "heap", s.part[TP_LK_HEAP], total, 1);
    /* the others largest first; a file by its name, the two largest apart */
    uint64_t files_rest = s.part[TP_LK_FILE];
    struct {
        const char *name;
        uint64_t v;
        char buf[96];
    } p[TP_LEDGER_KINDS + 2];
    int n = 0;
    for (int i = 0; i < 2 && s.file[i]; i++) {
        snprintf(p[n].buf, sizeof p[n].buf, "%s (mapped file)", tp_base_name(s.file[i]->name, "?"));
        p[n].name = p[n].buf;
        p[n++].v = s.file[i]->resident_bytes;
        files_rest -= s.file[i]->resident_bytes;
    }
    p[n].name = "other mapped files", p[n++].v = files_rest;
    p[n].name = "anonymous mmap", p[n++].v = s.part[TP_LK_ANON];
    p[n].name = "allocator", p[n++].v = s.part[TP_LK_ALLOC];
    p[n].name = "stacks", p[n++].v = s.part[TP_LK_STACKS];
    p[n].name = "libraries", p[n++].v = s.part[TP_LK_LIBS];
    p[n].name = "tprof", p[n++].v = s.part[TP_LK_TPROF];
    p[n].name = "other", p[n++].v = s.part[TP_LK_OTHER];
    for (int i = 1; i < n; i++) /* a few: an insertion sort, stable */
        for (int j = i; j > 0 && p[j - 1].v < p[j].v; j--) {
            const char *nm = p[j].name;
            uint64_t v = p[j].v;
            p[j].name = p[j - 1].name, p[j].v = p[j - 1].v;
            p[j - 1].name = nm, p[j - 1].v = v;
        }
    for (int i = 0; i < n; i++)
        part(t, p[i].name, p[i].v, total, 0);
    /* "= + heap" reads "= heap" */
    memmove(t->p + at + 1, t->p + at + 3, t->len - at - 2);
    t->len -= 2;
    tp_buf_printf(t, " (+%.1f unexplained)", in_unit(s.part[TP_LK_UNEXPLAINED], total));
}

int tp_ledger_retention(const struct tp_memory *m, struct tp_buf *t)
{
    struct tp_ledger_sum s;
    tp_ledger_sum(m, &s);
    if (s.retained < TP_LEDGER_RETAINED_MIN || (double)s.retained < 0.2 * (double)s.total)
        return 0;
    char a[32], b[32];
    tp_buf_printf(
        t,
        "the allocator keeps %s the program freed (%s of the peak RSS): glibc holds "
        "freed blocks for reuse; malloc_trim(0) after the phase that frees them gives "
        "the memory back",
        tp_fmt_bytes(s.retained, a, sizeof a),
        (snprintf(b, sizeof b, "%.0f%%", 100.0 * (double)s.retained / (double)s.total), b));
    return 1;
}

void tp_ledger_story(const struct tp_memory *m, struct tp_buf *t)
{
    struct tp_ledger_sum s;
    tp_ledger_sum(m, &s);
    if (!s.total)
        return;
    char a[32], b[32], c[32];
    tp_fmt_bytes(s.total, a, sizeof a);
    /* the heap is the story already told; say what else outweighs it */
    if (s.file[0] && s.file[0]->resident_bytes >= s.part[TP_LK_HEAP] &&
        (double)s.file[0]->resident_bytes >= 0.2 * (double)s.total)
        tp_buf_printf(t,
                      " RSS peaks at %s, %s of it mapped from %s (%s mapped): persistent memory, "
                      "resident for as long as the file stays mapped.",
                      a, tp_fmt_bytes(s.file[0]->resident_bytes, b, sizeof b),
                      tp_base_name(s.file[0]->name, "?"),
                      tp_fmt_bytes(s.file[0]->mapped_bytes, c, sizeof c));
    else if (s.part[TP_LK_ANON] >= s.part[TP_LK_HEAP] &&
             (double)s.part[TP_LK_ANON] >= 0.2 * (double)s.total)
        tp_buf_printf(t,
                      " RSS peaks at %s, %s of it anonymous memory the program maps itself, the "
                      "most from %s.",
                      a, tp_fmt_bytes(s.part[TP_LK_ANON], b, sizeof b),
                      s.anon && s.anon->name ? s.anon->name : "?");
    else if (s.libs && s.part[TP_LK_LIBS] >= s.part[TP_LK_HEAP] &&
             (double)s.part[TP_LK_LIBS] >= 0.4 * (double)s.total)
        tp_buf_printf(t,
                      " RSS peaks at %s, %s of it the %s loaded (the program and its "
                      "libraries), not the model's data.",
                      a, tp_fmt_bytes(s.part[TP_LK_LIBS], b, sizeof b),
                      s.libs->name ? s.libs->name : "code and data of its files");
    if (s.part[TP_LK_TPROF] >= TP_LEDGER_TPROF_MIN &&
        (double)s.part[TP_LK_TPROF] >= 0.1 * (double)s.total)
        tp_buf_printf(t,
                      " Of the peak RSS, %s is tprof's own (its tables of the program's blocks and "
                      "call sites, the symbol tables it reads): the program alone peaks that much "
                      "lower.",
                      tp_fmt_bytes(s.part[TP_LK_TPROF], b, sizeof b));
    struct tp_buf r;
    tp_buf_init(&r);
    if (tp_ledger_retention(m, &r)) {
        char *x = (char *)tp_buf_str(&r);
        x[0] = (char)(x[0] - 'a' + 'A');
        tp_buf_printf(t, " %s.", x);
    }
    tp_buf_free(&r);
}
