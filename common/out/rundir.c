/* The run's directory (common/out/out.h): where the processes of one run leave their records for
 * the root's reporter.
 *
 * A build or a script starts dozens of processes; with a JSON report per process each of them
 * would start a reporter of its own, which loads libdw and json-c and reads the same program's
 * symbols again (the 25 cc1 of a make read cc1's 29,000 symbols 25 times). Instead a process
 * that is not the run's root, and whose one output is a JSON file, writes its record at that
 * file's name and leaves an entry naming it here; the root's reporter, at the root's exit,
 * reports every record named here with one symboliser and replaces each record with its report.
 *
 * The root makes the directory as it starts its first child (mkdtemp: private to its user, a
 * name nobody can guess), and its name travels to the run's processes in TPROF_ROOT_PID. A
 * process adds its entry holding a shared lock on the directory (flock) and only while the run is
 * open; the root, at its end, takes the lock exclusively to close the run (the file "closed"),
 * lists the entries under it and removes the directory. So an entry is either listed or never
 * made: a process that ends after the root (a background job, a daemon) finds the run closed or
 * its directory gone, and has its report made as a lone process would. A record never reported
 * (the root was killed) stays a record, which `tprof report`, `merge` and `diff` read as the
 * report they make. */
#include "common/out/out.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLOSED "closed"
#define ENTRY  "e."

int tp_rundir_make(const char *tmpdir, char *dir, size_t n)
{
    if (!tmpdir || tmpdir[0] != '/')
        tmpdir = "/tmp";
    int len = snprintf(dir, n, "%s/tprof-run.XXXXXX", tmpdir);
    if (len < 0 || (size_t)len >= n || len > TP_RUNDIR_MAX || strpbrk(dir, ":\n")) {
        dir[0] = 0;
        return -1;
    }
    if (!mkdtemp(dir)) {
        dir[0] = 0;
        return -1;
    }
    return 0;
}

/* The run's directory opened and checked: ours alone (a directory this user owns that nobody
 * else may enter), or -1. */
static int open_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(fd);
        return -1;
    }
    return fd;
}

static int lock(int fd, int how)
{
    while (flock(fd, how) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* Closed: the file "closed" is there, or the directory was removed while we held it open. */
static int run_closed(int fd)
{
    struct stat st;
    return faccessat(fd, CLOSED, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || fstat(fd, &st) < 0 ||
           st.st_nlink == 0;
}

int tp_rundir_join(const char *dir)
{
    int fd = dir && dir[0] ? open_dir(dir) : -1;
    if (fd < 0)
        return -1;
    if (lock(fd, LOCK_SH) < 0 || run_closed(fd)) {
        close(fd);
        return -1;
    }
    return fd;
}

int tp_rundir_add(int fd, const char *path)
{
    char name[64], line[4200];
    int len = snprintf(line, sizeof line, "%s\n", path);
    if (path[0] != '/' || len < 0 || (size_t)len >= sizeof line)
        return -1;
    for (int k = 0; k < 100; k++) {
        snprintf(name, sizeof name, ENTRY "%ld.%d", (long)getpid(), k);
        int e = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (e < 0 && errno == EEXIST)
            continue;
        if (e < 0)
            return -1;
        int ok = tp_write_fd(e, line, (size_t)len) == 0;
        if (close(e) < 0 || !ok) {
            unlinkat(fd, name, 0);
            return -1;
        }
        return 0;
    }
    return -1;
}

void tp_rundir_leave(int fd)
{
    if (fd >= 0)
        close(fd); /* the lock goes with the descriptor */
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries' paths, each entry removed as it is read. */
static size_t take_entries(int fd, char ***out)
{
    size_t n = 0, cap = 0;
    char **names = NULL;
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        *out = NULL;
        return 0;
    }
    rewinddir(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, ENTRY, strlen(ENTRY)) != 0)
            continue;
        if (n == cap) {
            size_t c = cap ? cap * 2 : 16;
            char **m = realloc(names, c * sizeof *m);
            if (!m)
                break;
            names = m;
            cap = c;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[4200];
        ssize_t got = -1;
        int e = openat(fd, names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (e >= 0) {
            got = read(e, buf, sizeof buf - 1);
            close(e);
        }
        unlinkat(fd, names[i], 0);
        free(names[i]);
        if (got > 1 && buf[got - 1] == '\n' && buf[0] == '/') {
            buf[got - 1] = 0;
            names[k] = strdup(buf);
            k += names[k] != NULL;
        }
    }
    if (!k) {
        free(names);
        names = NULL;
    }
    *out = names;
    return k;
}

/* A process holds the shared lock while it writes its record: milliseconds. One stopped there
 * (SIGSTOP, a debugger) must not hold the root's exit for ever: after this long the run is
 * closed without the lock, and an entry made after the listing is found by the next call. */
#define CLOSE_WAIT_NS 5000000000LL

int tp_rundir_close(const char *dir, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    int fd = open_dir(dir);
    if (fd < 0)
        return -1;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((errno != EWOULDBLOCK && errno != EINTR) ||
            (now.tv_sec - t0.tv_sec) * 1000000000LL + (now.tv_nsec - t0.tv_nsec) > CLOSE_WAIT_NS)
            break;
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    int c = openat(fd, CLOSED, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (c >= 0)
        close(c);
    *n = take_entries(fd, paths);
    close(fd);
    return 0;
}

void tp_rundir_remove(const char *dir)
{
    int fd = open_dir(dir);
    if (fd < 0)
        return;
    char **left;
    size_t n = take_entries(fd, &left); /* entries nobody will report: their records stay */
    for (size_t i = 0; i < n; i++)
        free(left[i]);
    free(left);
    unlinkat(fd, CLOSED, 0);
    close(fd);
    rmdir(dir);
}
