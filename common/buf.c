#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_buf_init(struct tp_buf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void tp_buf_free(struct tp_buf *b)
{
    free(b->p);
    tp_buf_init(b);
}

/* Room for n more bytes plus a NUL. */
static int reserve(struct tp_buf *b, size_t n)
{
    if (b->oom)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

int tp_buf_reserve(struct tp_buf *b, size_t n)
{
    return reserve(b, n);
}

void tp_buf_put(struct tp_buf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void tp_buf_put_quoted(struct tp_buf *b, const char *s, size_t n)
{
    if (reserve(b, n + 2) < 0)
        return;
    b->p[b->len] = '"';
    memcpy(b->p + b->len + 1, s, n);
    b->len += n + 2;
    b->p[b->len - 1] = '"';
    b->p[b->len] = '\0';
}

void tp_buf_puts(struct tp_buf *b, const char *s)
{
    tp_buf_put(b, s, strlen(s));
}

void tp_buf_putc(struct tp_buf *b, char c)
{
    tp_buf_put(b, &c, 1);
}

void tp_buf_vprintf(struct tp_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        tp_buf_put(b, small, (size_t)n);
    } else if (reserve(b, (size_t)n) == 0) {
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void tp_buf_printf(struct tp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tp_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *tp_buf_str(struct tp_buf *b)
{
    return b->p ? b->p : "";
}

char *tp_dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}
