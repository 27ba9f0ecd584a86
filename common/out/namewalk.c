/* Which file a report name leads to (common/out/namewalk.h). The name is walked one component at a
 * time, as the kernel walks it, so that every symbolic link on the way can be checked against
 * the rule the kernel applies to links in shared directories before it is followed. */
#include "common/out/namewalk.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40

static const char refused_link[] =
    "a symbolic link on the way is another user's, in a sticky world-writable directory: "
    "not followed";
static const char refused_fifo[] =
    "a FIFO of another user's, in a sticky world-writable directory: not written";

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

void tp_dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* A world-writable directory with the sticky bit (/tmp, /var/tmp, /dev/shm), where anyone may
 * create a name but only its owner may remove it: the one place another user can plant a link or
 * a FIFO at a name we are about to use. */
static int shared_sticky(const struct stat *dir)
{
    return (dir->st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);
}

/* Whether the kernel's fs.protected_symlinks rule lets this process follow the link `st` that
 * lies in directory `dir`: the link is ours, or the directory's owner's, or the directory is not
 * sticky and world-writable. Applied whatever the sysctl says, because the links are followed
 * here, by hand, where the kernel cannot apply it: a report run as root must not be turned by
 * another user's link onto a file that user could not write. */
static int may_follow(const struct stat *st, const char *dir)
{
    struct stat d;
    if (st->st_uid == geteuid())
        return 1;
    if (stat(dir, &d) < 0)
        return 0;
    return !shared_sticky(&d) || d.st_uid == st->st_uid;
}

/* Append component c (k bytes) to the resolved prefix done. */
static int append(char *done, const char *c, size_t k)
{
    size_t dl = strlen(done);
    int sep = dl && done[dl - 1] != '/';
    if (dl + (size_t)sep + k >= TP_NAME_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (sep)
        done[dl++] = '/';
    memcpy(done + dl, c, k);
    done[dl + k] = 0;
    return 0;
}

/* ".." of a prefix without links is lexical: drop its last component. A relative prefix that is
 * all ".." (or empty) grows instead. */
static int parent(char *done)
{
    char *slash = strrchr(done, '/');
    const char *last = slash ? slash + 1 : done;
    if (!strcmp(done, "/"))
        return 0;
    if (!*done || !strcmp(last, ".."))
        return append(done, "..", 2);
    if (slash == done)
        done[1] = 0;
    else if (slash)
        *slash = 0;
    else
        done[0] = 0;
    return 0;
}

/* Replace the link at t->path (in directory dir; rest: what follows it in the name) by its
 * target, into todo (which rest may point into). 0, or -1 with errno. */
static int follow(struct tp_target *t, const struct stat *st, const char *dir, const char *rest,
                  char *todo)
{
    char link[TP_NAME_MAX], next[2 * TP_NAME_MAX];
    if (!may_follow(st, dir)) {
        t->why = refused_link;
        errno = EACCES;
        return -1;
    }
    ssize_t n = readlink(t->path, link, sizeof link - 1);
    if (n < 0)
        return -1;
    link[n] = 0;
    if ((size_t)snprintf(next, sizeof next, "%s%s", link, rest) >= TP_NAME_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(todo, next);
    if (link[0] == '/')
        strcpy(t->path, "/");
    else
        strcpy(t->path, strcmp(dir, ".") ? dir : "");
    return 0;
}

/* The end of the walk: what is there, and whether it is another user's FIFO planted in a
 * shared directory (the kernel's fs.protected_fifos rule). */
static int classify(struct tp_target *t)
{
    if (!*t->path)
        strcpy(t->path, ".");
    if (stat(t->path, &t->st) < 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return -1;
        /* a new file; a directory part that is missing or not a directory is for the caller
         * to report */
        t->kind = TP_T_FILE;
        return 0;
    }
    t->exists = 1;
    t->kind = S_ISREG(t->st.st_mode) ? TP_T_FILE : TP_T_INPLACE;
    if (S_ISFIFO(t->st.st_mode) && t->st.st_uid != geteuid()) {
        char dir[TP_NAME_MAX];
        struct stat d;
        tp_dir_of(t->path, dir, sizeof dir);
        if (stat(dir, &d) == 0 && shared_sticky(&d) && d.st_uid != t->st.st_uid) {
            t->why = refused_fifo;
            errno = EACCES;
            return -1;
        }
    }
    return 0;
}

/* Walk path one component at a time, as the kernel would, replacing each symbolic link by its
 * target once may_follow allows it (a descriptor name met on the way wins: the link behind
 * /proc/self/fd/N names the file the descriptor was opened on, not the descriptor). t->path ends
 * up a name with no link in it, so that the file written, renamed over or created is the one
 * this walk checked. */
int tp_name_walk(const char *path, struct tp_target *t)
{
    char todo[TP_NAME_MAX], joined[2 * TP_NAME_MAX + 2], dir[TP_NAME_MAX];
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (strlen(path) >= sizeof todo) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(todo, path);
    strcpy(t->path, path[0] == '/' ? "/" : "");
    int hops = 0, missing = 0;
    for (const char *rest = todo;;) {
        while (*rest == '/')
            rest++;
        snprintf(joined, sizeof joined, "%s%s%s", t->path,
                 *t->path && t->path[strlen(t->path) - 1] != '/' && *rest ? "/" : "", rest);
        if ((t->fd = fd_name(joined)) >= 0) {
            t->kind = TP_T_FD;
            return 0;
        }
        if (!*rest)
            break;
        size_t k = strcspn(rest, "/");
        const char *c = rest;
        rest += k;
        if (k == 1 && c[0] == '.')
            continue;
        if (k == 2 && c[0] == '.' && c[1] == '.') {
            if (parent(t->path) < 0)
                return -1;
            continue;
        }
        snprintf(dir, sizeof dir, "%s", *t->path ? t->path : ".");
        if (append(t->path, c, k) < 0)
            return -1;
        struct stat st;
        /* past a name that does not exist (yet) the rest is taken as it stands, for
         * classify() and the caller's directory checks to judge */
        if (missing || (missing = lstat(t->path, &st) < 0) || !S_ISLNK(st.st_mode))
            continue;
        if (++hops > MAX_LINKS) {
            errno = ELOOP;
            return -1;
        }
        if (follow(t, &st, dir, rest, todo) < 0)
            return -1;
        rest = todo;
    }
    return classify(t);
}
