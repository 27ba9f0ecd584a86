/* Report files and messages: paths, the one writer, names followed as the kernel would, escaping: the one header of common/out/ for code outside it. */
#ifndef TPROF_COMMON_OUT_OUT
#define TPROF_COMMON_OUT_OUT

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The standard error the program started with, for the text report written at its exit.
 *
 * Programs close or replace descriptor 2 before they end: coreutils close stderr in an atexit
 * handler, daemons and servers point it at their own log file, and a closed descriptor 2 is
 * reused by the next file the program opens. Writing the report to whatever descriptor 2 is at
 * exit then loses it, or appends it to one of the program's own files. */
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
/* The descriptor tp_errout_write would write to now, or -1 (for a program of tprof's that
 * writes there: the reporter, preload/handoff.c). */
int tp_errout_fd(void);

/* Values shown in a message, escaped once. A warning or an error echoes what it was given (a
 * setting's value, a path, a name from the program or from a file) to a terminal, where a raw
 * escape sequence would move the cursor, clear the screen or retitle the window, a newline
 * would forge a second line, and a byte of no character would garble the rest. */
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

/* Expand a report path template (common/out/path.c) for one process image. A template that names a
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

/* The run's directory (common/out/rundir.c): the processes of one run leave their records there
 * for the root's reporter, which reports them all at once at the root's exit. */
#define TP_RUNDIR_MAX 200 /* longest name: it travels in TPROF_ROOT_PID */
/* The root, as it starts its first child: make one under tmpdir (NULL or not absolute: /tmp), its name in dir
 * (n bytes). 0, or -1 (dir "") when it cannot be made or its name is too long. */
int tp_rundir_make(const char *tmpdir, char *dir, size_t n);
/* A process of the run, at its end: the directory held (a shared lock) while the run is open,
 * or -1 when it is closed, gone, or not this user's alone. */
int tp_rundir_join(const char *dir);
/* Name a record (an absolute path) for the reporter, on a directory joined. 0 or -1. */
int tp_rundir_add(int fd, const char *path);
void tp_rundir_leave(int fd);
/* The reporter: close the run (no entry is added after it) and take the records named so far,
 * the entries removed: *paths (n of them, each and the array for the caller to free). 0, or -1
 * when the directory is not there or not this user's alone. Called again, it takes what a
 * process that held the lock too long added meanwhile. */
int tp_rundir_close(const char *dir, char ***paths, size_t *n);
/* Remove the directory and what is left in it (the records named stay where they are). */
void tp_rundir_remove(const char *dir);

/* Report path templates: %p pid, %r MPI rank, %h host name, %% a percent sign.
 *
 * One report per process image: when the template has no %p and the process is not the root of
 * the profiled tree (a forked child, a spawned program), ".<pid>" goes before the extension. The
 * plain name belongs to the last image of a process, the one that did the work: an image that
 * execs another reports, if at all, under ".<image>" (track/out/output.c), so the program a wrapper
 * (env, a shell's exec, a launcher script) starts gets the name the user asked for. */
struct tp_path_ctx {
    long pid;
    long rank;
    const char *host;
    int add_pid;   /* 1: not the root process: make the name unique by pid */
    int image_seq; /* >0: the Nth image of this pid after exec: ".exec<N>" on a ".sig<M>" report */
    int sig_seq;   /* >0: the Nth report written on demand (TPROF_SIGNAL): ".sig<N>" */
    const char *image; /* non-NULL: the report of an image as it execs another: ".<image>" */
};

/* Expand tmpl into out (size n). Returns 0, or -1 when the result does not fit or the template
 * has an unknown %-sequence (then out holds a one-line reason). */
int tp_path_expand(const char *tmpl, const struct tp_path_ctx *ctx, char *out, size_t n);

/* The file name of path: what follows its last '/', all of path when it has none; none when path
 * is NULL (a frame whose module or file is not known). */
const char *tp_base_name(const char *path, const char *none);

/* Is path under a directory where the system installs shared libraries (/lib/, /lib64/,
 * /usr/lib/, /usr/lib64/, at any depth)? with_programs: or programs (/bin/, /sbin/, /usr/bin/,
 * /usr/sbin/, /usr/libexec/), for the question "is this code the system's" about a frame, where an
 * executable counts too (a system program's own allocations are not what an exec'ing image is
 * reported for: track/out/output_exec.c). Without it, the question is about libraries that a program
 * loads: what the C runtime keeps (report/siteclass.c), which libraries' DWARF is not worth
 * decompressing (track/sym/symbolize.c). Not the PLT hooks' question, which excludes a package's own
 * subdirectory of /usr/lib (preload/plt/plt_mods.c). 0 for NULL. */
int tp_in_system_dir(const char *path, int with_programs);

/* The MPI rank from OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or PMIX_RANK, else 0. */
long tp_mpi_rank(const char *(*get)(const char *));

/* Length of the valid UTF-8 sequence at p (2 to 4 bytes, p[0] >= 0x80), or 0 when it is not
 * one: overlong forms, UTF-16 surrogates, code points beyond U+10FFFF and truncated sequences
 * are all refused, as strict parsers (Python's, for one) refuse them. */
int tp_utf8_len(const unsigned char *p);

#endif
