/* Human units (report/units.h). The thresholds are rounding-aware (9.995, 99.95, 999.5): deciding
 * the precision on the unrounded value would print "100.0k" or "1024 KiB". */
#include "report/units.h"
#include "common/out/out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* d (>= 0, below 999.5) with 3 significant digits: 1.23, 12.3, 123. */
static void sig3(char *out, size_t n, double d, const char *sep, const char *unit)
{
    int dec = d < 9.995 ? 2 : d < 99.95 ? 1 : 0;
    snprintf(out, n, "%.*f%s%s", dec, d, sep, unit);
}

char *tp_fmt_bytes(uint64_t v, char *out, size_t n)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (v < 1024) {
        snprintf(out, n, "%llu B", (unsigned long long)v);
        return out;
    }
    double d = (double)v;
    int u = 0;
    do {
        d /= 1024;
        u++;
    } while (d >= 999.5 && u < 6);
    sig3(out, n, d, " ", unit[u]);
    return out;
}

char *tp_fmt_ns(uint64_t v, char *out, size_t n)
{
    double d = (double)v;
    if (v < 1000)
        snprintf(out, n, "%llu ns", (unsigned long long)v);
    else if (d / 1e3 < 999.5)
        sig3(out, n, d / 1e3, " ", "us");
    else if (d / 1e6 < 999.5)
        sig3(out, n, d / 1e6, " ", "ms");
    else if (d / 1e9 < 999.5)
        sig3(out, n, d / 1e9, " ", "s");
    else if (d / 1e9 < 99999.5)
        snprintf(out, n, "%.0f s", d / 1e9);
    else if (d / 3.6e12 < 9999.5)
        snprintf(out, n, "%.0f h", d / 3.6e12);
    else
        snprintf(out, n, "%.0f d", d / 8.64e13);
    return out;
}

/* v >= 1000 with an SI prefix, a separator and a unit: 1.20k, 3.40 MFLOP. */
static void si(uint64_t v, const char *sep, const char *unit, char *out, size_t n)
{
    static const char *prefix[] = {"k", "M", "G", "T", "P", "E"};
    double d = (double)v;
    int u = -1;
    do {
        d /= 1000;
        u++;
    } while (d >= 999.5 && u < 5);
    char p[16];
    snprintf(p, sizeof p, "%s%s", prefix[u], unit);
    sig3(out, n, d, sep, p);
}

char *tp_fmt_count(uint64_t v, char *out, size_t n)
{
    if (v < 1000)
        snprintf(out, n, "%llu", (unsigned long long)v);
    else
        si(v, "", "", out, n);
    return out;
}

char *tp_fmt_rate(double per_s, const char *unit, char *out, size_t n)
{
    static const char *prefix[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
    if (!isfinite(per_s) || per_s < 0) {
        snprintf(out, n, "-");
        return out;
    }
    double d = per_s;
    int u = 0;
    while (d >= 999.5 && u < 8) {
        d /= 1000;
        u++;
    }
    char p[32];
    snprintf(p, sizeof p, "%s%s", prefix[u], unit ? unit : "");
    if (d >= 999.5)
        snprintf(out, n, "%.3g %s", d, p);
    else
        sig3(out, n, d, " ", p);
    return out;
}

char *tp_fmt_num(double v, int decimals, int width, char *out, size_t n)
{
    static const char sfx[] = "kMGTPEZY";
    char tmp[400];
    if (!isfinite(v)) {
        snprintf(out, n, "-");
        return out;
    }
    if (width < 1)
        width = 1;
    for (int d = decimals; d >= 0; d--) {
        snprintf(tmp, sizeof tmp, "%.*f", d, v);
        if (strlen(tmp) <= (size_t)width) {
            snprintf(out, n, "%s", tmp);
            return out;
        }
    }
    double a = v;
    int i = -1;
    while (fabs(a) >= 999.5 && i < 7) {
        a /= 1000;
        i++;
    }
    if (i >= 0) {
        for (int d = 2; d >= 0; d--) {
            snprintf(tmp, sizeof tmp, "%.*f%c", d, a, sfx[i]);
            if (strlen(tmp) <= (size_t)width) {
                snprintf(out, n, "%s", tmp);
                return out;
            }
        }
    }
    snprintf(tmp, sizeof tmp, "%.0e", v);
    snprintf(out, n, "%.*s", width, tmp);
    return out;
}

char *tp_fmt_pct(double frac, int width, char *out, size_t n)
{
    char num[64];
    tp_fmt_num(100 * frac, 1, width > 1 ? width - 1 : 1, num, sizeof num);
    snprintf(out, n, "%s%s", num, isfinite(frac) ? "%" : "");
    return out;
}

char *tp_fmt_frame(const struct tp_frame *f, char *out, size_t n)
{
    const char *inl = f->inlined ? " [inlined]" : "";
    if (f->function && f->file && f->line > 0)
        snprintf(out, n, "%s%s (%s:%d)", f->function, inl, tp_base_name(f->file, NULL), f->line);
    else if (f->function)
        snprintf(out, n, "%s%s (%s)", f->function, inl, tp_base_name(f->module, "?"));
    else
        snprintf(out, n, "%s+0x%llx", tp_base_name(f->module, "?"), (unsigned long long)f->offset);
    return out;
}

/* The character at p: its length in bytes (1 to 4; 1 for a byte that does not start valid
 * UTF-8), and in *ok whether it may be shown as is: not a control character (C0, DEL, C1), not
 * part of invalid UTF-8. */
static int char_at(const unsigned char *p, int *ok)
{
    unsigned c = p[0];
    *ok = 0;
    if (c < 0x80) {
        *ok = c >= 0x20 && c != 0x7f;
        return 1;
    }
    int len = tp_utf8_len(p);
    if (!len)
        return 1;
    *ok = !(c == 0xC2 && p[1] < 0xA0); /* U+0080..U+009F: C1 controls, one '?' */
    return len;
}

size_t tp_text_width(const char *s)
{
    size_t w = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        int ok;
        p += char_at(p, &ok);
        w++;
    }
    return w;
}

/* Copy at most cols characters of s into out (n bytes with the NUL), sanitised. Returns the
 * columns written. */
static size_t copy_cols(const char *s, size_t cols, char *out, size_t n, size_t *used)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t w = 0, o = *used;
    while (*p && w < cols) {
        int ok, l = char_at(p, &ok);
        size_t need = ok ? (size_t)l : 1;
        if (o + need + 1 > n)
            break;
        if (ok)
            memcpy(out + o, p, need);
        else
            out[o] = '?';
        o += need;
        p += l;
        w++;
    }
    out[o] = 0;
    *used = o;
    return w;
}

char *tp_fmt_fit(const char *s, size_t w, char *out, size_t n)
{
    size_t used = 0;
    if (!n)
        return out;
    out[0] = 0;
    if (!s)
        return out;
    if (tp_text_width(s) <= w || w < 4) {
        copy_cols(s, w, out, n, &used);
        return out;
    }
    size_t got = copy_cols(s, w - 3, out, n, &used);
    if (got == w - 3 && used + 4 <= n)
        memcpy(out + used, "...", 4);
    return out;
}

char *tp_fmt_cell(const char *s, size_t w, int right, char *out, size_t n)
{
    char fit[1024];
    if (!n)
        return out;
    tp_fmt_fit(s ? s : "", w, fit, sizeof fit);
    size_t fw = tp_text_width(fit), pad = fw < w ? w - fw : 0;
    snprintf(out, n, "%*s%s%*s", right ? (int)pad : 0, "", fit, right ? 0 : (int)pad, "");
    return out;
}
