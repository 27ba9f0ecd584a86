/* The text report's layout: columns that widen with the report, headings, paragraphs wrapped
 * at the width, aligned cells and the latency tables' rows. Shared by render_text.c and its
 * sections' files, which call only downward into it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/render_text.h"
#include "report/units.h"

size_t tp_text_col(const struct tp_text_ctx *c, int base)
{
    int w = base + c->extra;
    return (size_t)(w < 10 ? 10 : w);
}

/* ---- text helpers ---- */

void tp_text_heading(struct tp_text_ctx *c, const char *title)
{
    size_t n = tp_text_width(title);
    tp_buf_printf(c->b, "\n%s ", title);
    for (size_t i = n + 1; i < (size_t)c->width; i++)
        tp_buf_putc(c->b, '-');
    tp_buf_putc(c->b, '\n');
}

/* A paragraph wrapped at the width: the first line after prefix, the others indented. Words
 * longer than a line are cut. */
void tp_text_wrap(struct tp_text_ctx *c, const char *prefix, const char *text, int indent)
{
    size_t len = strlen(text ? text : "");
    char *s = malloc(len + 1);
    if (!s)
        return;
    tp_fmt_fit(text ? text : "", (size_t)-1, s, len + 1); /* sanitised, same length or shorter */
    size_t room = (size_t)c->width, used = tp_text_width(prefix);
    tp_buf_puts(c->b, prefix);
    int line_empty = 1;
    const char *p = s;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        char word[1024];
        size_t wl = (size_t)(e - p) < sizeof word - 1 ? (size_t)(e - p) : sizeof word - 1;
        memcpy(word, p, wl);
        word[wl] = 0;
        size_t ww = tp_text_width(word);
        if (!line_empty && used + 1 + ww > room) {
            tp_buf_printf(c->b, "\n%*s", indent, "");
            used = (size_t)indent;
            line_empty = 1;
        }
        if (!line_empty) {
            tp_buf_putc(c->b, ' ');
            used++;
        }
        if (used + ww > room) { /* a word wider than a line */
            char cut[1024];
            tp_fmt_fit(word, room - used, cut, sizeof cut);
            tp_buf_puts(c->b, cut);
            used = room;
        } else {
            tp_buf_puts(c->b, word);
            used += ww;
        }
        line_empty = 0;
        p = e;
    }
    tp_buf_putc(c->b, '\n');
    free(s);
}

/* One line of free text built with printf, wrapped at the width with an indent of 2. */
void tp_text_say(struct tp_text_ctx *c, const char *fmt, ...)
{
    struct tp_buf t;
    tp_buf_init(&t);
    va_list ap;
    va_start(ap, fmt);
    tp_buf_vprintf(&t, fmt, ap);
    va_end(ap);
    tp_text_wrap(c, "", tp_buf_str(&t), 2);
    tp_buf_free(&t);
}

const char *tp_text_right(char *out, size_t n, const char *s, size_t w)
{
    return tp_fmt_cell(s, w, 1, out, n);
}

/* argv as a shell would take it back: words with unusual characters in single quotes. */
void tp_text_command_line(const struct tp_program *p, struct tp_buf *t)
{
    for (size_t i = 0; i < p->argc; i++) {
        const char *a = p->argv[i] ? p->argv[i] : "";
        int plain = *a != 0;
        for (const char *q = a; *q && plain; q++)
            plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                           "_./=:,+@%-",
                           *q) != NULL;
        if (i)
            tp_buf_putc(t, ' ');
        if (plain) {
            tp_buf_puts(t, a);
            continue;
        }
        tp_buf_putc(t, '\'');
        for (const char *q = a; *q; q++)
            if (*q == '\'')
                tp_buf_puts(t, "'\\''");
            else
                tp_buf_putc(t, *q);
        tp_buf_putc(t, '\'');
    }
}

/* ---- latency tables ---- */

/* rounded half away from zero, as llround would, without libm (libtprof.so links libc only) */
uint64_t tp_text_ns_of(double v)
{
    if (!isfinite(v) || v <= 0)
        return 0;
    if (v >= 18446744073709549568.0)
        return UINT64_MAX;
    uint64_t t = (uint64_t)v;
    return v - (double)t >= 0.5 ? t + 1 : t;
}

void tp_text_latency_head(struct tp_text_ctx *c, const char *first)
{
    char h[10][128];
    size_t nw = tp_text_col(c, 24);
    tp_buf_printf(c->b, "%s %s %s %s %s %s %s %s %s %s\n", tp_fmt_cell(first, nw, 0, h[0], 128),
                  tp_text_right(h[1], 128, "n", 6), tp_text_right(h[2], 128, "warm", 5),
                  tp_text_right(h[3], 128, "min", 8), tp_text_right(h[4], 128, "p50", 8),
                  tp_text_right(h[5], 128, "p95", 8), tp_text_right(h[6], 128, "p99", 8),
                  tp_text_right(h[7], 128, "max", 8), tp_text_right(h[8], 128, "mean", 8),
                  tp_text_right(h[9], 128, "stddev", 8));
}

void tp_text_latency_row(struct tp_text_ctx *c, const char *label, uint64_t warm,
                         const struct tp_latency *l)
{
    char h[10][128], v[9][32];
    size_t nw = tp_text_col(c, 24);
    tp_fmt_count(l->n, v[0], 32);
    tp_fmt_count(warm, v[1], 32);
    tp_fmt_ns(l->min, v[2], 32);
    tp_fmt_ns(l->p50, v[3], 32);
    tp_fmt_ns(l->p95, v[4], 32);
    tp_fmt_ns(l->p99, v[5], 32);
    tp_fmt_ns(l->max, v[6], 32);
    tp_fmt_ns(tp_text_ns_of(l->mean), v[7], 32);
    tp_fmt_ns(tp_text_ns_of(l->stddev), v[8], 32);
    tp_buf_printf(c->b, "%s %s %s %s %s %s %s %s %s %s\n", tp_text_name(c, label, nw, h[0], 128),
                  tp_text_right(h[1], 128, v[0], 6), tp_text_right(h[2], 128, v[1], 5),
                  tp_text_right(h[3], 128, v[2], 8), tp_text_right(h[4], 128, v[3], 8),
                  tp_text_right(h[5], 128, v[4], 8), tp_text_right(h[6], 128, v[5], 8),
                  tp_text_right(h[7], 128, v[6], 8), tp_text_right(h[8], 128, v[7], 8),
                  tp_text_right(h[9], 128, v[8], 8));
}

/* A C++ name with what is between the outermost brackets of kind open..close folded to "...":
 * "std::vector<float, std::allocator<float> >::push_back(float const&)" with '<' '>' is
 * "std::vector<...>::push_back(float const&)". Into out; 0 when nothing was folded. */
static int fold(const char *s, char open, char close, char *out, size_t n)
{
    size_t o = 0;
    int depth = 0, folded = 0;
    for (; *s && o + 4 < n; s++) {
        if (*s == open && depth++ == 0) {
            out[o++] = open;
            memcpy(out + o, "...", 3);
            o += 3;
            folded = 1;
        } else if (*s == close && depth > 0 && --depth == 0) {
            out[o++] = close;
        } else if (depth == 0) {
            out[o++] = *s;
        }
    }
    out[o] = 0;
    return folded && !*s && depth == 0; /* "operator<<" is no bracket */
}

const char *tp_text_name(struct tp_text_ctx *c, const char *name, size_t w, char *out, size_t n)
{
    const char *s = name ? name : "";
    char t[1024], p[1024];
    /* a C++ name too long for its column keeps its row with its template arguments, then its
     * parameters, folded ("nn::Conv<...>::run(...)"); --wide and the JSON have it whole */
    if (tp_text_width(s) > w && !c->wide && fold(s, '<', '>', t, sizeof t)) {
        if (tp_text_width(t) <= w)
            s = t;
        else if (fold(t, '(', ')', p, sizeof p) && tp_text_width(p) <= w)
            s = p;
    } else if (tp_text_width(s) > w && !c->wide && fold(s, '(', ')', p, sizeof p) &&
               tp_text_width(p) <= w) {
        s = p;
    }
    if (tp_text_width(s) > w) {
        /* never cut: the whole name on lines of its own (wrapped at the width, between
         * characters), the row's figures on the next */
        char whole[2048];
        tp_fmt_fit(s, sizeof whole - 1, whole, sizeof whole);
        size_t width = c->width > 0 ? (size_t)c->width : 100;
        const char *p = whole;
        while (*p) {
            size_t cols = 0, len = 0;
            while (p[len] && cols < width) {
                len++; /* one character: its lead byte and its continuation bytes */
                while (((unsigned char)p[len] & 0xC0) == 0x80)
                    len++;
                cols++;
            }
            tp_buf_printf(c->b, "%.*s\n", (int)len, p);
            p += len;
        }
        s = "";
    }
    return tp_fmt_cell(s, w, 0, out, n);
}
