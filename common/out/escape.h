/* Values shown in a message, escaped once. A warning or an error echoes what it was given (a
 * setting's value, a path, a name from the program or from a file) to a terminal, where a raw
 * escape sequence would move the cursor, clear the screen or retitle the window, a newline
 * would forge a second line, and a byte of no character would garble the rest. */
#ifndef TPROF_ESCAPE_H
#define TPROF_ESCAPE_H

#include <stddef.h>

/* Write the n bytes at s into out (cap bytes, always NUL-terminated when cap > 0) as one line
 * that shows every byte: a control character (bytes below 0x20 and 0x7f; the C1 controls
 * U+0080-U+009F and the bidirectional overrides and isolates U+202A-U+202E, U+2066-U+2069,
 * which reorder what a terminal shows) and each byte of no valid UTF-8 sequence become \xNN, a
 * backslash \\; everything else, valid UTF-8 included, is kept. The text is cut before an
 * escape that does not fit whole. Returns the length written. Allocation-free and
 * async-signal-safe. Escaped text escaped again shows its backslashes doubled: escape once, at
 * the place that prints. */
size_t tp_escape(char *out, size_t cap, const char *s, size_t n);
/* The same for a NUL-terminated string (NULL shows as "(null)"); returns out. */
const char *tp_escape_str(char *out, size_t cap, const char *s);

#endif
