/* Writing a report file where the user pointed, the one way every writer does it (the preloaded
 * library's reports, tprof merge -o, the peaks cache of tprof calibrate). Files are created the
 * way the kernel would let this user create them, because a report is often written as root
 * into a directory that other users can write (/tmp):
 *
 * - Symbolic links on the way are followed only where the kernel's fs.protected_symlinks rule
 *   would follow them (the link is ours or the directory owner's, or the directory is not sticky
 *   and world-writable), whatever that setting is on this machine: they are followed here, not
 *   by the kernel. A link refused is one line, and nothing is written or created.
 * - A regular file, or a name that does not exist yet, is written atomically: a file with no
 *   name (O_TMPFILE; else an exclusive, unguessable temporary name), renamed over the final name
 *   when whole, so that a reader never sees half a file and nobody can open it meanwhile. Its
 *   mode comes from the umask, never from the file it replaces. A link to a file keeps the link
 *   and replaces the file at the end of the chain.
 * - A name that exists and is not a regular file (a character device such as /dev/null, a FIFO a
 *   log collector reads, a terminal) is opened and written in place: renaming over it would
 *   replace the device with a regular file. A FIFO is opened without blocking: with no reader the
 *   write is skipped (ENXIO) rather than hanging the program's exit. Another user's FIFO in a
 *   sticky world-writable directory is refused (the kernel's fs.protected_fifos rule).
 * - /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N (directly or through
 *   links) are the process's own descriptor N, written as it is: reopening the name would start
 *   at offset 0 of a log file the shell opened, or truncate it.
 * A write never kills the program: SIGPIPE (a reader went away) and SIGXFSZ (ulimit -f) are kept
 * from the process, and a write that would pass the file size limit is refused before its first
 * byte. A file is written only while the file system keeps 1/8 of its size (at most 256 MiB)
 * free: the space belongs to the program. */
#ifndef TPROF_FILEIO_H
#define TPROF_FILEIO_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

struct tp_path_ctx;

/* Write len bytes of data to path as above. Returns 0, or -1 with errno set and *why (when why
 * is not NULL) a short reason ("no process reads this FIFO", or strerror's text). */
int tp_write_file(const char *path, const void *data, size_t len, const char **why);

/* How the temporary file of an atomic write takes its place: fn(arg, tmp, final, n) instead of
 * rename(tmp, final); it may choose another name (final holds n bytes). 0, or -1 with errno. */
struct tp_publish {
    int (*fn)(void *arg, const char *tmp, char *final, size_t n);
    void *arg;
    /* Not 0: temporary files of dead processes beside the final name, written since this time
     * (ns since the epoch, on the file system's clock), are removed first. */
    int64_t since_ns;
};

/* tp_write_file with a publisher (NULL: rename); final gets the name written (the end of a link
 * chain, or the publisher's choice), n bytes. */
int tp_write_file_as(const char *path, const void *data, size_t len, const struct tp_publish *pub,
                     char *final, size_t n, const char **why);

/* From a signal handler that ends the process: remove the temporary file of an atomic write in
 * progress, so that only whole files are left. Async-signal-safe. */
void tp_write_abandon(void);

/* Write everything to fd (EINTR, short writes, a non-blocking descriptor and SIGPIPE handled).
 * 0 or -1 with errno set. */
int tp_write_fd(int fd, const void *data, size_t len);

/* 1 when path names something written in place (a descriptor, a device, a FIFO): one target
 * for every process, so the per-process suffixes of report names do not apply to it. */
int tp_file_is_stream(const char *path);

/* Whether tp_write_file(path) can be expected to work, checked before anything is written: the
 * directory of a regular (or new) file exists and is writable, a device or FIFO is writable, a
 * descriptor is open for writing. Returns 0, or -1 with a one-line reason in why (n bytes),
 * such as "/no/dir: No such file or directory". */
int tp_check_output(const char *path, char *why, size_t n);

/* Expand a report path template (common/out/path.h) for one process image. A template that names a
 * stream (a device, a FIFO, a descriptor) is one target for every process: it gets none of the
 * per-process suffixes, which would create "/dev/null.12345" beside the device. 0, or -1 with a
 * reason in out (as tp_path_expand). */
int tp_output_path(const char *tmpl, const struct tp_path_ctx *ctx, char *out, size_t n);

/* The whole of a small text file (a settings file: at most 1 MiB, no NUL byte), NUL-terminated,
 * for the caller to free; NULL with why set ("cannot be read", "larger than 1 MiB", "not a text
 * file", "out of memory"). */
char *tp_read_text_file(const char *path, char *why, size_t n);
/* A small file (a /proc or /sys one) into buf, read to its end or until buf is full, and
 * NUL-terminated: its length, or -1 when it cannot be opened or read. No allocation: the library
 * reads such files from its hooks and at exit. */
ssize_t tp_read_small(const char *path, char *buf, size_t n);

#endif
