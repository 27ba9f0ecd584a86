/* The HTML page's cells (report/render/render_html.h): text escaped, numbers sortable, an op's
 * name short with the full one on hover, a call site's stack. */
#include <stdio.h>

#include "common/names/names.h"
#include "common/out/out.h"
#include "report/render/render_html.h"
#include "report/units.h"

/* Text as HTML: the five characters that mean something escaped; invalid UTF-8 replaced. */
void tp_html_esc(struct tp_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        switch (*p) {
        case '<': tp_buf_puts(b, "&lt;"); break;
        case '>': tp_buf_puts(b, "&gt;"); break;
        case '&': tp_buf_puts(b, "&amp;"); break;
        case '"': tp_buf_puts(b, "&quot;"); break;
        case '\'': tp_buf_puts(b, "&#39;"); break;
        default:
            if (*p >= 0x80) {
                int len = tp_utf8_len(p);
                if (len) {
                    tp_buf_put(b, (const char *)p, (size_t)len);
                    p += len;
                    continue;
                }
                tp_buf_puts(b, "\xef\xbf\xbd");
            } else if (*p < 0x20 && *p != '\n' && *p != '\t') {
                tp_buf_putc(b, '?');
            } else {
                tp_buf_putc(b, (char)*p);
            }
        }
        p++;
    }
}

/* A number cell: shown as text, sorted by the exact value v. */
void tp_html_num(struct tp_buf *b, double v, const char *text)
{
    tp_buf_printf(b, "<td data-v=\"%.17g\">", v);
    tp_html_esc(b, text);
    tp_buf_puts(b, "</td>");
}

void tp_html_text(struct tp_buf *b, const char *s)
{
    tp_buf_puts(b, "<td class=\"l\">");
    tp_html_esc(b, s);
    tp_buf_puts(b, "</td>");
}

/* An op's name as the tables show it (tp_name_short), the full one on hover. */
void tp_html_name(struct tp_buf *b, const char *name)
{
    const char *s = tp_name_short(name);
    if (s == name) {
        tp_html_text(b, name);
        return;
    }
    tp_buf_puts(b, "<td class=\"l\" title=\"");
    tp_html_esc(b, name);
    tp_buf_puts(b, "\">");
    tp_html_esc(b, s);
    tp_buf_puts(b, "</td>");
}

void tp_html_head(struct tp_buf *b, const char *const *h, size_t n)
{
    tp_buf_puts(b, "<thead><tr>");
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(b, "<th%s>%s</th>", i == 0 ? " class=\"l\"" : "", h[i]);
    tp_buf_puts(b, "</tr></thead><tbody>\n");
}

void tp_html_site(struct tp_buf *b, const struct tp_site *s)
{
    tp_buf_puts(b, "<td class=\"l\">");
    for (size_t i = tp_site_first_own(s); i < s->nframes && i < 4; i++) {
        char f[600];
        if (i > tp_site_first_own(s))
            tp_buf_puts(b, " &lt; ");
        tp_html_esc(b, tp_fmt_frame(&s->frames[i], f, sizeof f));
    }
    tp_buf_puts(b, "</td>");
}
