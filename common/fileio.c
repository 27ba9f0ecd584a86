#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/path.h"

#define TP_PATH_MAX 4096
#define MAX_LINKS   40

enum { T_FILE, T_FD, T_INPLACE };

/* What a name leads to. No allocation: the preloaded library writes from exit paths. */
struct target {
    int kind;
    int fd;     /* T_FD: the descriptor */
    int exists; /* the end of the link chain exists (st is valid) */
    struct stat st;
    char path[TP_PATH_MAX]; /* the end of the link chain */
};

/* The descriptor a name stands for: /dev/std{in,out,err}, /dev/fd/N, /proc/self/fd/N,
 * /proc/thread-self/fd/N, /proc/<our pid>/fd/N. -1 for any other name. */
static int fd_name(const char *p)
{
    static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(p, std[i]))
            return i;
    char own[64];
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own};
    for (int i = 0; i < 4; i++) {
        size_t k = strlen(dirs[i]);
        if (strncmp(p, dirs[i], k) != 0)
            continue;
        const char *s = p + k;
        long fd = 0;
        if (!*s)
            return -1;
        for (; *s; s++) {
            if (*s < '0' || *s > '9' || fd > INT_MAX / 10)
                return -1;
            fd = fd * 10 + (*s - '0');
        }
        return fd <= INT_MAX ? (int)fd : -1;
    }
    return -1;
}

/* Follow path's symbolic links one at a time (a descriptor name met on the way wins: the link
 * behind /proc/self/fd/N names the file the descriptor was opened on, not the descriptor), then
 * classify the end. Intermediate directories are left as they are: renaming inside a directory
 * works through a link to it. 0, or -1 with errno. */
static int resolve(const char *path, struct target *t)
{
    char link[TP_PATH_MAX];
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (strlen(path) >= sizeof t->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(t->path, path);
    for (int hops = 0;; hops++) {
        int fd = fd_name(t->path);
        if (fd >= 0) {
            t->kind = T_FD;
            t->fd = fd;
            return 0;
        }
        struct stat st;
        if (lstat(t->path, &st) < 0 || !S_ISLNK(st.st_mode))
            break;
        if (hops == MAX_LINKS) {
            errno = ELOOP;
            return -1;
        }
        ssize_t k = readlink(t->path, link, sizeof link - 1);
        if (k < 0)
            return -1;
        link[k] = 0;
        size_t dl = 0;
        if (link[0] != '/') {
            char *slash = strrchr(t->path, '/');
            dl = slash ? (size_t)(slash - t->path) + 1 : 0;
        }
        if (dl + (size_t)k >= sizeof t->path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(t->path + dl, link, (size_t)k + 1);
    }
    if (stat(t->path, &t->st) == 0) {
        t->exists = 1;
        t->kind = S_ISREG(t->st.st_mode) ? T_FILE : T_INPLACE;
        return 0;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return -1;
    /* a new file (or a dangling link's target, created where it points); a directory part
     * that is missing or not a directory is for the caller to report */
    t->kind = T_FILE;
    return 0;
}

int tp_write_fd(int fd, const void *data, size_t len)
{
    const char *p = data;
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    /* A reader that went away must not kill the program with SIGPIPE at its exit: block it for
     * the write and take back the one our write raised (not one that was already pending). */
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigemptyset(&pending);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE) == 1;
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
    if (e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        errno = e;
    return rc;
}

static int write_in_place(const struct target *t, const void *data, size_t len, const char **why)
{
    int fifo = S_ISFIFO(t->st.st_mode);
    /* Never O_TRUNC (meaningless for a device) nor O_CREAT (the name exists); O_NONBLOCK so that
     * a FIFO without a reader fails with ENXIO instead of waiting for one forever. */
    int fd = open(t->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO && fifo && why)
            *why = "no process reads this FIFO";
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

/* The temporary file of the atomic write in progress, for tp_write_abandon (a signal handler). */
static char *volatile tmp_in_progress;

void tp_write_abandon(void)
{
    char *t = tmp_in_progress;
    if (t)
        unlink(t);
}

static int write_atomic(const struct target *t, const void *data, size_t len,
                        const struct tp_publish *pub, char *final, size_t n)
{
    char tmp[TP_PATH_MAX + 32];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp%ld", t->path, (long)getpid()) >= sizeof tmp ||
        strlen(t->path) >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(final, t->path, strlen(t->path) + 1);
    tmp_in_progress = tmp;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        tmp_in_progress = NULL;
        return -1;
    }
    /* the replacement keeps the permissions of the file it replaces */
    if (t->exists)
        (void)fchmod(fd, t->st.st_mode & 07777);
    int rc = tp_write_fd(fd, data, len);
    int e = errno;
    if (close(fd) < 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && (pub ? pub->fn(pub->arg, tmp, final, n) : rename(tmp, final)) < 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0) {
        unlink(tmp);
        errno = e;
    }
    tmp_in_progress = NULL;
    return rc;
}

int tp_write_file_as(const char *path, const void *data, size_t len, const struct tp_publish *pub,
                     char *final, size_t n, const char **why)
{
    struct target t;
    const char *reason = NULL;
    int rc;
    if ((size_t)snprintf(final, n, "%s", path) >= n) {
        errno = ENAMETOOLONG;
        rc = -1;
    } else if (resolve(path, &t) < 0) {
        rc = -1;
    } else if (t.kind == T_FD) {
        rc = tp_write_fd(t.fd, data, len);
    } else if (t.kind == T_INPLACE) {
        rc = write_in_place(&t, data, len, &reason);
    } else {
        rc = write_atomic(&t, data, len, pub, final, n);
    }
    if (rc < 0 && why)
        *why = reason ? reason : strerror(errno);
    return rc;
}

int tp_write_file(const char *path, const void *data, size_t len, const char **why)
{
    char final[TP_PATH_MAX + 1];
    return tp_write_file_as(path, data, len, NULL, final, sizeof final, why);
}

int tp_file_is_stream(const char *path)
{
    struct target t;
    int e = errno;
    int r = resolve(path, &t) == 0 && t.kind != T_FILE;
    errno = e;
    return r;
}

int tp_check_output(const char *path, char *why, size_t n)
{
    struct target t;
    int e = errno, rc = -1;
    if (resolve(path, &t) < 0) {
        snprintf(why, n, "%s", strerror(errno));
    } else if (t.kind == T_FD) {
        int fl = fcntl(t.fd, F_GETFL);
        if (fl < 0)
            snprintf(why, n, "file descriptor %d is not open", t.fd);
        else if ((fl & O_ACCMODE) == O_RDONLY)
            snprintf(why, n, "file descriptor %d is not open for writing", t.fd);
        else
            rc = 0;
    } else if (t.kind == T_INPLACE) {
        if (S_ISDIR(t.st.st_mode))
            snprintf(why, n, "is a directory");
        else if (access(t.path, W_OK) < 0)
            snprintf(why, n, "%s: %s", t.path, strerror(errno));
        else
            rc = 0;
    } else {
        /* a regular or new file: the temporary file and the rename need the directory */
        char dir[TP_PATH_MAX];
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
