/* The standard error the program started with, for the text report written at its exit.
 *
 * Programs close or replace descriptor 2 before they end: coreutils close stderr in an atexit
 * handler, daemons and servers point it at their own log file, and a closed descriptor 2 is
 * reused by the next file the program opens. Writing the report to whatever descriptor 2 is at
 * exit then loses it, or appends it to one of the program's own files. */
#ifndef TPROF_ERROUT_H
#define TPROF_ERROUT_H

#include <stddef.h>

/* Remember what descriptor 2 is now. A terminal, a regular file or a character device is kept
 * open on a descriptor of our own (close-on-exec, numbered high): holding one of those open
 * changes nothing the program or anyone else can see. A pipe or a socket is not: a second
 * holder would keep its reader from seeing end-of-file when the program closes its stderr. */
void tp_errout_init(void);

/* Write the report where stderr was at start: our copy when we keep one and it is still the
 * same file, else descriptor 2 when it is still that file. 0 when written; -1 when stderr was
 * closed or now names another file (the report is then not written anywhere the program did
 * not expect it), or the write failed. */
int tp_errout_write(const void *data, size_t len);

#endif
