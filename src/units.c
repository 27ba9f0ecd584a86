#include "units.h"

#include <stdio.h>
#include <string.h>

char *tp_fmt_bytes(uint64_t v, char *out, size_t n)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024 && u < 4) {
        d /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%llu B", (unsigned long long)v);
    else
        snprintf(out, n, d < 10 ? "%.2f %s" : d < 100 ? "%.1f %s" : "%.0f %s", d, unit[u]);
    return out;
}

char *tp_fmt_ns(uint64_t v, char *out, size_t n)
{
    double d = (double)v;
    if (v < 1000)
        snprintf(out, n, "%llu ns", (unsigned long long)v);
    else if (v < 1000000)
        snprintf(out, n, d < 1e4 ? "%.2f us" : d < 1e5 ? "%.1f us" : "%.0f us", d / 1e3);
    else if (v < 1000000000ull)
        snprintf(out, n, d < 1e7 ? "%.2f ms" : d < 1e8 ? "%.1f ms" : "%.0f ms", d / 1e6);
    else
        snprintf(out, n, d < 1e10 ? "%.2f s" : d < 1e11 ? "%.1f s" : "%.0f s", d / 1e9);
    return out;
}

char *tp_fmt_count(uint64_t v, char *out, size_t n)
{
    static const char *unit[] = {"", "k", "M", "G", "T", "P"};
    double d = (double)v;
    int u = 0;
    while (d >= 1000 && u < 5) {
        d /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%llu", (unsigned long long)v);
    else
        snprintf(out, n, d < 10 ? "%.2f%s" : d < 100 ? "%.1f%s" : "%.0f%s", d, unit[u]);
    return out;
}

char *tp_fmt_flops(uint64_t v, char *out, size_t n)
{
    char c[32];
    tp_fmt_count(v, c, sizeof c);
    snprintf(out, n, "%sFLOP", c);
    return out;
}

static const char *base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

char *tp_fmt_frame(const struct tp_frame *f, char *out, size_t n)
{
    if (f->function && f->file && f->line)
        snprintf(out, n, "%s (%s:%d)", f->function, base(f->file), f->line);
    else if (f->function)
        snprintf(out, n, "%s (%s)", f->function, f->module ? base(f->module) : "?");
    else
        snprintf(out, n, "%s+0x%llx", f->module ? base(f->module) : "?",
                 (unsigned long long)f->offset);
    return out;
}

char *tp_fmt_fit(const char *s, size_t w, char *out, size_t n)
{
    size_t len = s ? strlen(s) : 0;
    if (!s)
        s = "";
    if (len <= w || w < 4) {
        snprintf(out, n, "%.*s", (int)w, s);
    } else {
        snprintf(out, n, "%.*s...", (int)(w - 3), s);
    }
    return out;
}
