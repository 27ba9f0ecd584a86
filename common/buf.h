/* A growable byte buffer for rendering reports. Allocation failure is sticky (oom) rather than
 * fatal: a renderer keeps going, the caller checks tp_buf_ok() once at the end. */
#ifndef TPROF_BUF_H
#define TPROF_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct tp_buf {
    char *p;
    size_t len, cap;
    int oom;
};

void tp_buf_init(struct tp_buf *b);
void tp_buf_free(struct tp_buf *b);
/* Make room for n more bytes at once (a large render then never copies itself as it grows). */
int tp_buf_reserve(struct tp_buf *b, size_t n);
void tp_buf_put(struct tp_buf *b, const char *s, size_t n);
void tp_buf_puts(struct tp_buf *b, const char *s);
/* '"', the n bytes at s as they are, '"' (a JSON string that needs no escaping). */
void tp_buf_put_quoted(struct tp_buf *b, const char *s, size_t n);
void tp_buf_putc(struct tp_buf *b, char c);
void tp_buf_printf(struct tp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tp_buf_vprintf(struct tp_buf *b, const char *fmt, va_list ap);
static inline int tp_buf_ok(const struct tp_buf *b)
{
    return !b->oom;
}
/* The contents as a NUL-terminated string (an empty string when nothing was written). */
const char *tp_buf_str(struct tp_buf *b);

/* A malloc'ed copy of s, NULL for NULL (a frame's unknown function, file or module). */
char *tp_dup_or_null(const char *s);

#endif
