#include "common/out/out.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "common/out/namewalk.h"

static const char no_room[] =
    "not enough free space: the report would leave less than 1/8 of the file system (at most "
    "256 MiB) free for the program";
static const char too_large[] = "larger than the file size limit (ulimit -f)";

/* Signals a write can raise: SIGPIPE (the reader went away) and SIGXFSZ (past ulimit -f). Each
 * would kill the program whose report this is. */
static void write_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGPIPE);
    sigaddset(set, SIGXFSZ);
}

/* A write to a regular file that would pass RLIMIT_FSIZE fails part way with SIGXFSZ/EFBIG and
 * leaves a cut file: refuse it before the first byte. */
static int over_size_limit(int fd, size_t len)
{
    struct rlimit rl;
    struct stat st;
    if (getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return 0;
    int fl = fcntl(fd, F_GETFL);
    off_t at = fl >= 0 && (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
    if (at < 0)
        at = 0;
    return (uint64_t)at + len > (uint64_t)rl.rlim_cur;
}

int tp_write_fd(int fd, const void *data, size_t len)
{
    const char *p = data;
    if (over_size_limit(fd, len)) {
        errno = EFBIG;
        return -1;
    }
    sigset_t set, old, pending;
    write_signals(&set);
    /* A reader that went away, or a file size limit, must not kill the program at its exit:
     * block the signals for the write and take back the ones our write raised (not one that
     * was already pending). */
    pthread_sigmask(SIG_BLOCK, &set, &old);
    sigemptyset(&pending);
    sigpending(&pending);
    int pipe_was = sigismember(&pending, SIGPIPE) == 1;
    int fsz_was = sigismember(&pending, SIGXFSZ) == 1;
    int rc = 0, e = 0;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, p + off, len - off);
        if (w >= 0) {
            off += (size_t)w;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            /* the program made the descriptor non-blocking: wait until it takes more */
            struct pollfd pf = {fd, POLLOUT, 0};
            if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
                continue;
        }
        rc = -1;
        e = errno;
        break;
    }
    sigset_t ours;
    sigemptyset(&ours);
    if (e == EPIPE && !pipe_was)
        sigaddset(&ours, SIGPIPE);
    if (e == EFBIG && !fsz_was)
        sigaddset(&ours, SIGXFSZ);
    struct timespec zero = {0, 0};
    while (!sigisemptyset(&ours)) {
        int s = sigtimedwait(&ours, NULL, &zero);
        if (s > 0)
            sigdelset(&ours, s);
        else if (errno != EINTR)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        errno = e;
    return rc;
}

static int write_in_place(const struct tp_target *t, const void *data, size_t len, const char **why)
{
    int fifo = S_ISFIFO(t->st.st_mode);
    /* Never O_TRUNC (meaningless for a device) nor O_CREAT (the name exists); O_NONBLOCK so that
     * a FIFO without a reader fails with ENXIO instead of waiting for one forever; O_NOFOLLOW,
     * and the type checked again once open, so that a link or a regular file put in its place
     * since resolve() is not written through. */
    int fd = open(t->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENXIO && fifo && why)
            *why = "no process reads this FIFO";
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || (st.st_mode & S_IFMT) != (t->st.st_mode & S_IFMT)) {
        close(fd);
        errno = EAGAIN;
        if (why)
            *why = "the file changed while it was opened";
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    /* Several processes of one run may write to the same FIFO at once: one report at a time,
     * so that the reader gets each whole. */
    if (fifo)
        while (flock(fd, LOCK_EX) < 0 && errno == EINTR) {
        }
    int rc = tp_write_fd(fd, data, len);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* ---- temporary files ----
 *
 * The report is first written to a file with no name at all (O_TMPFILE), so that nobody can
 * open it, replace it or guess where it is, and a process killed while writing (SIGKILL, a
 * power cut) leaves nothing behind. It gets a name only when whole, for the moment rename()
 * needs one: "<final>.tmp<pid>.<12 random hex digits>", created exclusively. Where the file
 * system has no O_TMPFILE, the same name is created (O_EXCL | O_NOFOLLOW: never a file, link or
 * FIFO that someone put there) and written. Either way the mode comes from the umask, never
 * from a file that was there before. */

/* The temporary name of the atomic write in progress, for tp_write_abandon (a signal handler). */
static char *volatile tmp_in_progress;

void tp_write_abandon(void)
{
    char *t = tmp_in_progress;
    if (t)
        unlink(t);
}

static uint64_t random_bits(void)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    /* no entropy yet (early boot): the clock and addresses, still unknown to another user */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&r ^
        (uint64_t)getpid() << 40 ^ (uint64_t)ts.tv_sec;
    return r ^ r >> 29;
}

static int tmp_name(const char *final, char *tmp, size_t n)
{
    if ((size_t)snprintf(tmp, n, "%s.tmp%ld.%012llx", final, (long)getpid(),
                         (unsigned long long)(random_bits() & 0xffffffffffffull)) >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Give the nameless file fd a fresh temporary name. 0, or -1 with errno. */
static int name_tmpfile(int fd, const char *final, char *tmp, size_t n)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    for (int tries = 0; tries < 16; tries++) {
        if (tmp_name(final, tmp, n) < 0)
            return -1;
        tmp_in_progress = tmp;
        if (linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        /* no /proc: the descriptor itself, which needs CAP_DAC_READ_SEARCH */
        if (errno == ENOENT && linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH) == 0)
            return 0;
        tmp_in_progress = NULL;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

static int create_named(const char *final, char *tmp, size_t n)
{
    for (int tries = 0; tries < 16; tries++) {
        if (tmp_name(final, tmp, n) < 0)
            return -1;
        tmp_in_progress = tmp;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        tmp_in_progress = NULL;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* Whether writing len more bytes leaves the file system its share of free space: 1/8 of its
 * size, at most 256 MiB. A report is worth less than the program's own next write, and a full
 * disk (a small tmpfs, a quota) is where a snapshot rewritten every few seconds would take the
 * last blocks. Unknown sizes (a file system that reports none) go ahead. */
static int room_for(int fd, size_t len)
{
    struct statvfs vs;
    if (fstatvfs(fd, &vs) < 0 || !vs.f_blocks)
        return 1;
    uint64_t unit = vs.f_frsize ? vs.f_frsize : vs.f_bsize;
    uint64_t total = (uint64_t)vs.f_blocks * unit, avail = (uint64_t)vs.f_bavail * unit;
    uint64_t keep = total / 8 < (256ull << 20) ? total / 8 : 256ull << 20;
    return avail >= keep && avail - keep >= len;
}

/* The pid in a temporary name "<stem>....tmp<pid>.<12 hex digits>", or 0. The stem is the report
 * name up to its first dot, which every process of a run shares ("r" of r.json, r.123.json). */
static long tmp_pid(const char *name, const char *stem, size_t sl)
{
    size_t n = strlen(name);
    if (n < sl + 18 || strncmp(name, stem, sl) != 0)
        return 0;
    const char *hex = name + n - 12;
    if (strspn(hex, "0123456789abcdef") != 12 || hex[-1] != '.')
        return 0;
    const char *d = hex - 1;
    long pid = 0, mul = 1;
    while (d > name + sl && d[-1] >= '0' && d[-1] <= '9' && mul < 1000000000L) {
        d--;
        pid += (*d - '0') * mul;
        mul *= 10;
    }
    if (mul == 1 || d - name < (ptrdiff_t)(sl + 4) || strncmp(d - 4, ".tmp", 4) != 0)
        return 0;
    return pid;
}

/* Remove the temporary files that processes of this run left beside its reports when they were
 * killed between naming a whole report and renaming it into place (or while writing, where
 * O_TMPFILE is missing): regular files of ours, written since since_ns (file system time),
 * whose process is gone. Another run's, another user's and a live process's stay. */
static void remove_stale(const char *dir, const char *base, int64_t since_ns)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    char buf[8192];
    size_t sl = strcspn(base, ".");
    ssize_t got;
    while ((got = getdents64(dfd, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < got;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            long pid = tmp_pid(d->d_name, base, sl);
            struct stat st;
            if (pid <= 0 || pid == (long)getpid() ||
                fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
                st.st_uid != geteuid() ||
                (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec < since_ns)
                continue;
            if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
                unlinkat(dfd, d->d_name, 0);
        }
    }
    close(dfd);
}

/* Write data to a file with no name yet (or a fresh exclusive name); fd is closed. tmp gets
 * the file's temporary name. 0, or -1 with errno (the file gone) and *why for our refusals. */
static int fill_tmp(int fd, int named, const char *final, const void *data, size_t len, char *tmp,
                    size_t n, const char **why)
{
    int rc = 0, e = 0;
    if (!room_for(fd, len)) {
        rc = -1;
        e = ENOSPC;
        *why = no_room;
    } else if (tp_write_fd(fd, data, len) < 0) {
        rc = -1;
        e = errno;
    } else if (!named && name_tmpfile(fd, final, tmp, n) < 0) {
        rc = -1;
        e = errno;
    }
    if (close(fd) < 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0) {
        if (named || tmp_in_progress)
            unlink(tmp);
        tmp_in_progress = NULL;
        errno = e;
    }
    return rc;
}

static int write_atomic(const struct tp_target *t, const void *data, size_t len,
                        const struct tp_publish *pub, char *final, size_t n, const char **why)
{
    char tmp[TP_NAME_MAX + 32], dir[TP_NAME_MAX];
    if (strlen(t->path) + 32 >= sizeof tmp || strlen(t->path) >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(final, t->path, strlen(t->path) + 1);
    tp_dir_of(t->path, dir, sizeof dir);
    if (pub && pub->since_ns) {
        const char *slash = strrchr(t->path, '/');
        remove_stale(dir, slash ? slash + 1 : t->path, pub->since_ns);
    }
    int named = 0;
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) {
        named = 1;
        if ((fd = create_named(t->path, tmp, sizeof tmp)) < 0)
            return -1;
    }
    if (fill_tmp(fd, named, t->path, data, len, tmp, sizeof tmp, why) < 0)
        return -1;
    int rc = 0, e = 0;
    if ((pub ? pub->fn(pub->arg, tmp, final, n) : rename(tmp, final)) < 0) {
        rc = -1;
        e = errno;
        unlink(tmp);
    }
    tmp_in_progress = NULL;
    errno = e;
    return rc;
}

int tp_write_file_as(const char *path, const void *data, size_t len, const struct tp_publish *pub,
                     char *final, size_t n, const char **why)
{
    struct tp_target t;
    const char *reason = NULL;
    int rc;
    if ((size_t)snprintf(final, n, "%s", path) >= n) {
        errno = ENAMETOOLONG;
        rc = -1;
    } else if (tp_name_walk(path, &t) < 0) {
        reason = t.why;
        rc = -1;
    } else if (t.kind == TP_T_FD) {
        rc = tp_write_fd(t.fd, data, len);
    } else if (t.kind == TP_T_INPLACE) {
        rc = write_in_place(&t, data, len, &reason);
    } else {
        rc = write_atomic(&t, data, len, pub, final, n, &reason);
    }
    if (rc < 0 && why)
        *why = reason ? reason : errno == EFBIG ? too_large : strerror(errno);
    return rc;
}
int tp_write_file(const char *path, const void *data, size_t len, const char **why)
{
    char final[TP_NAME_MAX + 1];
    return tp_write_file_as(path, data, len, NULL, final, sizeof final, why);
}

int tp_file_is_stream(const char *path)
{
    struct tp_target t;
    int e = errno;
    int r = tp_name_walk(path, &t) == 0 && t.kind != TP_T_FILE;
    errno = e;
    return r;
}

int tp_check_output(const char *path, char *why, size_t n)
{
    struct tp_target t;
    int e = errno, rc = -1;
    if (tp_name_walk(path, &t) < 0) {
        snprintf(why, n, "%s", t.why ? t.why : strerror(errno));
    } else if (t.kind == TP_T_FD) {
        int fl = fcntl(t.fd, F_GETFL);
        if (fl < 0)
            snprintf(why, n, "file descriptor %d is not open", t.fd);
        else if ((fl & O_ACCMODE) == O_RDONLY)
            snprintf(why, n, "file descriptor %d is not open for writing", t.fd);
        else
            rc = 0;
    } else if (t.kind == TP_T_INPLACE) {
        if (S_ISDIR(t.st.st_mode))
            snprintf(why, n, "is a directory");
        else if (access(t.path, W_OK) < 0)
            snprintf(why, n, "%s: %s", t.path, strerror(errno));
        else
            rc = 0;
    } else {
        /* a regular or new file: the temporary file and the rename need the directory */
        char dir[TP_NAME_MAX];
        char *slash = strrchr(t.path, '/');
        if (!slash)
            strcpy(dir, ".");
        else if (slash == t.path)
            strcpy(dir, "/");
        else
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - t.path), t.path);
        struct stat st;
        if (stat(dir, &st) < 0)
            snprintf(why, n, "directory %s: %s", dir, strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            snprintf(why, n, "%s is not a directory", dir);
        else if (access(dir, W_OK | X_OK) < 0)
            snprintf(why, n, "directory %s: %s", dir, strerror(errno));
        else
            rc = 0;
    }
    errno = e;
    return rc;
}

int tp_output_path(const char *tmpl, const struct tp_path_ctx *ctx, char *out, size_t n)
{
    struct tp_path_ctx plain = *ctx;
    plain.add_pid = 0;
    plain.image_seq = 0;
    plain.image = NULL;
    plain.sig_seq = 0;
    if (tp_path_expand(tmpl, &plain, out, n) == 0 && tp_file_is_stream(out))
        return 0;
    return tp_path_expand(tmpl, ctx, out, n);
}

char *tp_read_text_file(const char *path, char *why, size_t n)
{
    enum { MAX_FILE = 1 << 20 };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "cannot be read");
        return NULL;
    }
    char *text = malloc(MAX_FILE + 1);
    size_t len = 0;
    ssize_t got = 1;
    while (text && len <= MAX_FILE && (got = read(fd, text + len, MAX_FILE + 1 - len)) > 0)
        len += (size_t)got;
    close(fd);
    if (!text || got < 0 || len > MAX_FILE || memchr(text, 0, len)) {
        snprintf(why, n, "%s",
                 !text            ? "out of memory"
                 : got < 0        ? "cannot be read"
                 : len > MAX_FILE ? "larger than 1 MiB"
                                  : "not a text file");
        free(text);
        return NULL;
    }
    text[len] = 0;
    return text;
}

ssize_t tp_read_small(const char *path, char *buf, size_t n)
{
    if (n == 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    ssize_t k = 0;
    while (len < n - 1 && ((k = read(fd, buf + len, n - 1 - len)) > 0 || (k < 0 && errno == EINTR)))
        len += k > 0 ? (size_t)k : 0;
    close(fd);
    buf[len] = 0;
    return k < 0 ? -1 : (ssize_t)len;
}
