/* The tprof program reports; this process only records (see preload/handoff.h).
 *
 * The reporter is `tprof report --from-library KINDS --top N -`, found beside libtprof.so as
 * `tprof run` finds the library beside itself: ../bin/tprof for an installed library, ../tprof
 * for the one a build leaves in .libs/, and the configured bindir for a library in the
 * configured libdir (a multiarch libdir is no sibling of bindir). A copy of the library elsewhere
 * never takes a tprof from the system, which may be another version's. It gets the program's
 * environment less LD_PRELOAD (tprof must not profile its own reporter, and a tool the user
 * preloads into the program, a counting or tracing shim, must not see it), reads the record on a
 * socket that is its standard input and answers on the same socket, its standard output, each
 * output as a line "KIND LENGTH" and LENGTH bytes. Its standard error is where tprof's own
 * warnings go: the program's standard error as it started when the text report goes there
 * (common/out/out.h), else as it is now.
 *
 * The program must not see the reporter:
 * - the reporter is not the program's child but a go-between's: the go-between, made with
 *   clone(CLONE_VM) and no exit signal, runs on a stack of its own beside this thread, which
 *   feeds the record and reads the answer meanwhile; it starts the reporter
 *   (clone(CLONE_VM | CLONE_VFORK), then the exec), waits for it and ends, without exec'ing. A
 *   child with no exit signal that never execs sends none when it ends (one that execs gets
 *   SIGCHLD back from the kernel), and only a wait with __WALL reaps it (below): the program
 *   gets no SIGCHLD, and its wait() for any child finds none of ours;
 * - every signal is blocked from before the first clone: no handler of the program's runs in the
 *   go-between or the reporter, both of which share the program's memory until the exec; the
 *   reporter unblocks them as it starts;
 * - the exec is libc's own, not the exec of preload/shim_exit.c, which would put LD_PRELOAD back;
 * - the socket is written with MSG_NOSIGNAL: a reporter that died is a failed report, not a
 *   SIGPIPE that ends the program;
 * - descriptors are close-on-exec, so that the reporter holds none of the program's files. */
#include "preload/handoff.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/out/out.h"
#include "preload/real.h"

/* Where the reporter is: found once, as the library does not move. */
static char reporter[PATH_MAX];
static int looked;
static char looked_at[3 * PATH_MAX + 64];

static int executable(const char *p)
{
    return access(p, X_OK) == 0;
}

static const char *find_reporter(void)
{
    if (looked)
        return reporter[0] ? reporter : NULL;
    looked = 1;
    Dl_info di;
    char dir[PATH_MAX] = "";
    if (dladdr((void *)&find_reporter, &di) && di.dli_fname && di.dli_fname[0] == '/' &&
        strlen(di.dli_fname) < sizeof dir) {
        strcpy(dir, di.dli_fname);
        char *slash = strrchr(dir, '/');
        *slash = 0;
    }
    char cand[3][PATH_MAX], libdir[PATH_MAX];
    int n = 0;
    if (dir[0]) {
        snprintf(cand[n++], PATH_MAX, "%s/../bin/tprof", dir);
        snprintf(cand[n++], PATH_MAX, "%s/../tprof", dir);
        char here[PATH_MAX];
        if (realpath(dir, here) && realpath(TPROF_LIBDIR, libdir) && !strcmp(here, libdir))
            snprintf(cand[n++], PATH_MAX, "%s/tprof", TPROF_BINDIR);
    }
    looked_at[0] = 0;
    for (int i = 0; i < n; i++) {
        if (executable(cand[i])) {
            if (!realpath(cand[i], reporter))
                snprintf(reporter, sizeof reporter, "%s", cand[i]);
            return reporter;
        }
        size_t at = strlen(looked_at);
        snprintf(looked_at + at, sizeof looked_at - at, "%s%s", i ? ", " : "", cand[i]);
    }
    return NULL;
}

/* What the child needs, all made before the clone: it may only make system calls. */
struct child {
    int sock, err;
    const char *path;
    char **argv, **envp;
    int (*execve)(const char *, char *const[], char *const[]);
    void (*exit)(int);
    long (*syscall)(long, ...);
    int peer;   /* this process's end of the socket, closed in the go-between */
    int status; /* the reporter's wait status, set by the go-between */
};

/* The two stacks: one report at a time is handed off (the report lock, preload/lifecycle.c); the
 * go-between uses the first until it ends, the reporter the second until its exec. */
static char between_stack[32 * 1024] __attribute__((aligned(16)));
static char reporter_stack[32 * 1024] __attribute__((aligned(16)));

static int child_main(void *arg)
{
    struct child *c = arg;
    /* Descriptors 0, 1 and 2 may be closed or be the socket itself: the copies above them come
     * first, then dup2, which leaves its target open across the exec. */
    int s = fcntl(c->sock, F_DUPFD_CLOEXEC, 3);
    int e = c->err >= 0 ? fcntl(c->err, F_DUPFD_CLOEXEC, 3) : -1;
    if (s < 0 || dup2(s, 0) < 0 || dup2(s, 1) < 0 || (e >= 0 && dup2(e, 2) < 0))
        c->exit(127);
    if (e < 0)
        close(2);
    c->execve(c->path, c->argv, c->envp);
    c->exit(127);
    return 127;
}

/* The go-between (see above): system calls only, and libc's clone, which touches no thread
 * state; the memory it writes is its own stack and c->status. */
static int between_main(void *arg)
{
    struct child *c = arg;
    close(c->peer);
    pid_t pid = clone(child_main, reporter_stack + sizeof reporter_stack,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, c);
    close(c->sock);
    int st = 127 << 8; /* as if it exited 127: it could not be started */
    if (pid > 0 && c->syscall(SYS_wait4, (long)pid, (long)&st, 0L, 0L) != pid)
        st = 127 << 8;
    c->status = st;
    c->exit(0);
    return 0;
}

/* environ less LD_PRELOAD, in a fresh array (the strings are the environment's). */
static char **clean_env(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **v = calloc(n + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            v[k++] = environ[i];
    return v;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int recv_all(int fd, struct tp_buf *b)
{
    char chunk[65536];
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return tp_buf_ok(b) ? 0 : -1;
        tp_buf_put(b, chunk, (size_t)r);
    }
}

int tp_handoff(const struct tp_buf *record, const char *kinds, int top, struct tp_buf *answer,
               char *why, size_t n)
{
    const char *path = find_reporter();
    if (!path) {
        snprintf(why, n, "the tprof program is not beside libtprof.so (looked for %s)", looked_at);
        return -1;
    }
    /* where the text report goes when that is stderr, else where tprof's warnings go */
    int err = tp_errout_fd();
    struct child c = {.path = path, .err = err >= 0 ? err : 2};
    c.execve = (int (*)(const char *, char *const[], char *const[]))tp_real("execve");
    c.exit = (void (*)(int))tp_real("_exit");
    c.syscall = (long (*)(long, ...))tp_real("syscall");
    char topv[24];
    snprintf(topv, sizeof topv, "%d", top);
    char *argv[] = {(char *)path, "report", "--from-library", (char *)kinds, "--top", topv,
                    "-",          NULL};
    c.argv = argv;
    c.envp = clean_env();
    int sv[2];
    if (!c.execve || !c.exit || !c.syscall || !c.envp) {
        free(c.envp);
        snprintf(why, n, "cannot start %s: %s", path, "out of memory");
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        snprintf(why, n, "cannot start %s: socketpair: %s", path, strerror(errno));
        free(c.envp);
        return -1;
    }
    c.sock = sv[1];
    c.peer = sv[0];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(between_main, between_stack + sizeof between_stack, CLONE_VM, &c);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(sv[1]);
    if (pid < 0) {
        free(c.envp);
        close(sv[0]);
        snprintf(why, n, "cannot start %s: %s", path, strerror(clone_errno));
        return -1;
    }
    int sent = send_all(sv[0], record->p ? record->p : "", record->len);
    shutdown(sv[0], SHUT_WR);
    int got = recv_all(sv[0], answer);
    close(sv[0]);
    int bst = 0;
    while (waitpid(pid, &bst, __WALL) < 0 && errno == EINTR)
        ;
    free(c.envp); /* read by the reporter's exec, which the go-between's end comes after */
    int st = c.status;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && sent == 0 && got == 0)
        return 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        snprintf(why, n, "%s could not be started", path);
    else if (WIFSIGNALED(st))
        snprintf(why, n, "%s ended on signal %d", path, WTERMSIG(st));
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(why, n, "%s failed (exit status %d)", path, WEXITSTATUS(st));
    else
        snprintf(why, n, "%s: the record could not be handed over", path);
    return -1;
}
