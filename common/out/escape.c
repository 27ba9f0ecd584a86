#include "common/out/out.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0; its code point in *cp. */
static size_t utf8_len(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0], lo = 0x80, hi = 0xbf;
    size_t len;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        *cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        *cp = c & 0x0f;
        lo = c == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
        hi = c == 0xed ? 0x9f : 0xbf; /* no surrogate */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        *cp = c & 0x07;
        lo = c == 0xf0 ? 0x90 : 0x80; /* no overlong form */
        hi = c == 0xf4 ? 0x8f : 0xbf; /* nothing past U+10FFFF */
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        unsigned b = s[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf))
            return 0;
        *cp = (*cp << 6) | (b & 0x3f);
    }
    return len;
}

/* Code points that a terminal acts on or that reorder the line, though valid. */
static int shown_escaped(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* Append text of len bytes if it fits with the terminating NUL; 0 when it does not. */
static int put(char *out, size_t cap, size_t *at, const char *text, size_t len)
{
    if (*at + len + 1 > cap)
        return 0;
    memcpy(out + *at, text, len);
    *at += len;
    return 1;
}

static int put_hex(char *out, size_t cap, size_t *at, const unsigned char *b, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    char e[16];
    for (size_t i = 0; i < len; i++) {
        e[4 * i] = '\\';
        e[4 * i + 1] = 'x';
        e[4 * i + 2] = hex[b[i] >> 4];
        e[4 * i + 3] = hex[b[i] & 15];
    }
    return put(out, cap, at, e, 4 * len);
}

size_t tp_escape(char *out, size_t cap, const char *s, size_t n)
{
    size_t at = 0, i = 0;
    if (cap == 0)
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    while (i < n) {
        unsigned c = u[i], cp;
        size_t len = 1;
        int ok;
        if (c == '\\')
            ok = put(out, cap, &at, "\\\\", 2);
        else if (c < 0x20 || c == 0x7f)
            ok = put_hex(out, cap, &at, u + i, 1);
        else if (c < 0x80)
            ok = put(out, cap, &at, s + i, 1);
        else if ((len = utf8_len(u + i, n - i, &cp)) == 0) {
            len = 1;
            ok = put_hex(out, cap, &at, u + i, 1);
        } else
            ok = shown_escaped(cp) ? put_hex(out, cap, &at, u + i, len)
                                   : put(out, cap, &at, s + i, len);
        if (!ok)
            break;
        i += len;
    }
    out[at] = 0;
    return at;
}

const char *tp_escape_str(char *out, size_t cap, const char *s)
{
    if (!s)
        s = "(null)";
    tp_escape(out, cap, s, strlen(s));
    return out;
}

int tp_utf8_len(const unsigned char *p)
{
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    int len;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return len;
}
