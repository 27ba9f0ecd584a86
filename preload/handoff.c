/* The tprof program reports; this process only records (see preload/handoff.h).
 *
 * The reporter is `tprof report --from-library -`, found beside libtprof.so as `tprof run`
 * finds the library beside itself: ../bin/tprof for an installed library, ../tprof for the one a
 * build leaves in .libs/, and the configured bindir for a library in the configured libdir (a
 * multiarch libdir is no sibling of bindir). A copy of the library elsewhere never takes a tprof
 * from the system, which may be another version's. It gets the program's environment less
 * LD_PRELOAD (tprof must not profile its own reporter, and a tool the user preloads into the
 * program, a counting or tracing shim, must not see it), and a socket as its standard input and
 * output: each request is a line "KINDS TOP LENGTH" and the record's LENGTH bytes; the answer is
 * each output as a line "KIND LENGTH" and its bytes, then "end 0" ("fail LENGTH" and a message
 * when it could not read the record). It is started at the first report and kept while the
 * process goes on (snapshots, TPROF_SIGNAL), so that a later report names only what is new; the
 * last report of the process image ends it. Its standard error is where tprof's own warnings go:
 * the program's standard error as it started when the text report goes there
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

/* The reporter of this process, kept from one report to the next while the process goes on
 * (snapshots, TPROF_SIGNAL): it keeps what it named, so that a later report names only what is
 * new. What its exec and the go-between read lives here for as long as it runs. */
static struct {
    int alive;
    pid_t between;
    int sock;
    struct child c;
    char **envp;
    char *argv[6];
} rep;

/* The go-between's end (and so the reporter's) and what it says: 0 for a clean exit, else why. */
static int reap(char *why, size_t n)
{
    int bst = 0, rc = 0;
    while (waitpid(rep.between, &bst, __WALL) < 0 && errno == EINTR)
        ;
    int st = rep.c.status;
    const char *path = rep.c.path;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        rc = 0;
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        rc = -1, snprintf(why, n, "%s could not be started", path);
    else if (WIFSIGNALED(st))
        rc = -1, snprintf(why, n, "%s ended on signal %d", path, WTERMSIG(st));
    else
        rc = -1, snprintf(why, n, "%s failed (exit status %d)", path, WEXITSTATUS(st));
    free(rep.envp);
    rep.envp = NULL;
    rep.alive = 0;
    return rc;
}

/* Start the reporter: 0, or -1 with why. */
static int start(char *why, size_t n)
{
    const char *path = find_reporter();
    if (!path) {
        snprintf(why, n, "the tprof program is not beside libtprof.so (looked for %s)", looked_at);
        return -1;
    }
    /* where the text report goes when that is stderr, else where tprof's warnings go */
    int err = tp_errout_fd();
    memset(&rep.c, 0, sizeof rep.c);
    rep.c.path = path;
    rep.c.err = err >= 0 ? err : 2;
    rep.c.execve = (int (*)(const char *, char *const[], char *const[]))tp_real("execve");
    rep.c.exit = (void (*)(int))tp_real("_exit");
    rep.c.syscall = (long (*)(long, ...))tp_real("syscall");
    rep.argv[0] = (char *)path;
    rep.argv[1] = "report";
    rep.argv[2] = "--from-library";
    rep.argv[3] = "-";
    rep.argv[4] = NULL;
    rep.c.argv = rep.argv;
    rep.envp = rep.c.envp = clean_env();
    int sv[2];
    if (!rep.c.execve || !rep.c.exit || !rep.c.syscall || !rep.envp) {
        free(rep.envp);
        rep.envp = NULL;
        snprintf(why, n, "cannot start %s: %s", path, "out of memory");
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        snprintf(why, n, "cannot start %s: socketpair: %s", path, strerror(errno));
        free(rep.envp);
        rep.envp = NULL;
        return -1;
    }
    rep.c.sock = sv[1];
    rep.c.peer = sv[0];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(between_main, between_stack + sizeof between_stack, CLONE_VM, &rep.c);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(sv[1]);
    if (pid < 0) {
        free(rep.envp);
        rep.envp = NULL;
        close(sv[0]);
        snprintf(why, n, "cannot start %s: %s", path, strerror(clone_errno));
        return -1;
    }
    rep.between = pid;
    rep.sock = sv[0];
    rep.alive = 1;
    return 0;
}

/* The answer to one request into *answer, less its closing "end 0" frame: 0 when it came
 * whole; 1 when the reporter said it could not report (its words in why); -1 when the socket
 * ended first. */
static int read_answer(struct tp_buf *answer, char *why, size_t n)
{
    size_t at = 0; /* the next frame's start in answer */
    for (;;) {
        /* whole frames from at on */
        for (;;) {
            const char *line = answer->p + at,
                       *nl = answer->p ? memchr(line, '\n', answer->len - at) : NULL;
            char kind[16];
            unsigned long long len;
            int used = 0;
            if (!nl)
                break;
            if (sscanf(line, "%15s %llu%n", kind, &len, &used) != 2 || line + used != nl)
                return -1;
            size_t body = (size_t)(nl + 1 - answer->p);
            if (len > answer->len - body)
                break;
            if (!strcmp(kind, "end")) {
                answer->len = at;
                return 0;
            }
            if (!strcmp(kind, "fail")) {
                snprintf(why, n, "the reporter could not read the record: %.*s", (int)len,
                         answer->p + body);
                answer->len = at;
                return 1;
            }
            at = body + (size_t)len;
        }
        char chunk[65536];
        ssize_t r = read(rep.sock, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        tp_buf_put(answer, chunk, (size_t)r);
        if (!tp_buf_ok(answer))
            return -1;
    }
}

void tp_handoff_end(void)
{
    char why[64];
    if (!rep.alive)
        return;
    close(rep.sock);
    (void)reap(why, sizeof why);
}

void tp_handoff_fork_child(void)
{
    /* the parent's reporter stays the parent's: this copy of the socket goes, nothing is reaped */
    if (rep.alive)
        close(rep.sock);
    rep.alive = 0;
    rep.envp = NULL;
}

int tp_handoff(const struct tp_buf *record, const char *kinds, int top, int keep,
               struct tp_buf *answer, char *why, size_t n)
{
    if (!rep.alive && start(why, n) < 0)
        return -1;
    char head[96];
    int hn = snprintf(head, sizeof head, "%s %d %zu\n", kinds, top, record->len);
    int sent = send_all(rep.sock, head, (size_t)hn) == 0 &&
               send_all(rep.sock, record->p ? record->p : "", record->len) == 0;
    if (!keep) /* the last request: the reporter ends once it has answered */
        shutdown(rep.sock, SHUT_WR);
    int got = sent ? read_answer(answer, why, n) : -1;
    if (got == 0 && keep)
        return 0;
    /* the last report of this process image, or a reporter that failed: it ends here */
    close(rep.sock);
    char ended[4096 + 128];
    int rc = reap(ended, sizeof ended);
    if (got == 0)
        return 0;
    if (got < 0 && rc < 0)
        snprintf(why, n, "%s", ended);
    else if (got < 0 && sent)
        snprintf(why, n, "the reporter's answer is not in its format");
    else if (got < 0)
        snprintf(why, n, "%s: the record could not be handed over", rep.c.path);
    return -1;
}
