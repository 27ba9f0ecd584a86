/* Ways out of a process image other than returning from main or exit() (those reach our
 * destructor): terminating signals, _exit/_Exit, quick_exit, and exec, which replaces the image
 * without running any destructor (PITFALLS P8, P9).
 *
 * Signals: a handler is installed only where the disposition is the default, so a program that
 * ignores SIGINT (a background job) or handles it itself keeps doing so. The handler writes the
 * report, restores the default action and re-raises, so the exit status is the one the program
 * would have had (143 for SIGTERM, a core for SIGSEGV). If the signal lands while this thread is
 * inside tprof or the allocator (the guard is set), writing the report there could deadlock on the
 * allocator's lock: an asynchronous signal is then deferred until the hook returns; a synchronous
 * fault there means the heap is corrupt, and we only say so.
 *
 * Such a signal is "armed": our handler stands in for its default action. When the program
 * later installs its own action for it (sigaction and signal shims, reporter.c), we stay out of
 * the way, unlike profilers that keep their handler first and call the program's from it
 * (libmonitor, which also drops the program's SA_ONSTACK and SA_RESETHAND):
 * - a handler or SIG_IGN is installed for real, with the program's flags and mask, so the kernel
 *   delivers the signal to it exactly as without tprof (same siginfo, alternate stack, mask);
 * - SIG_DFL installs our stand-in again, so dying by that signal still writes the report (a
 *   handler that restores the default and re-raises, or returns from a fault that happens again);
 * - a handler with SA_RESETHAND is entered through oneshot_entry(), which puts the stand-in back
 *   where the kernel has just put SIG_DFL, then calls the handler with the kernel's arguments;
 * - queries report what the program installed, never our stand-in or entry.
 * A handler that calls _exit reaches our _exit below; one that calls abort() reaches SIGABRT's
 * stand-in. Not covered: a program's SIGABRT handler that returns from abort() (glibc restores
 * the default inside libc, out of our sight), and actions set through sigset(), bsd_signal() or
 * the raw system call. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "preload/exitpaths.h"
#include "track/heap.h"
#include "track/runtime.h"

_Atomic int tp_pending_signal;

static const int watched[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT,
                              SIGSEGV, SIGBUS,  SIGFPE, SIGILL};

/* Per armed signal: what the program last asked for when it asked for SIG_DFL (flags and mask,
 * reported back while our stand-in is installed), and its action with SA_RESETHAND (called by
 * oneshot_entry). Written by the shims before the kernel action changes, read in handlers. */
static struct {
    _Atomic int armed;
    int dfl_set;              /* the program has asked for SIG_DFL itself */
    struct sigaction dfl;     /* that request */
    struct sigaction oneshot; /* the program's SA_RESETHAND action */
} sigs[NSIG];

static void *next_fn(const char *name);
static int in_vfork_child(void);

tp_sigaction_fn tp_real_sigaction(void)
{
    static tp_sigaction_fn fn;
    if (!fn)
        fn = (tp_sigaction_fn)next_fn("sigaction");
    return fn;
}

/* sigaction() itself is ours (reporter.c): everything here goes to the real one. */
static int ksigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    tp_sigaction_fn real = tp_real_sigaction();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(sig, act, old);
}

static void on_signal(int sig, siginfo_t *si, void *uc);

static void standin_action(struct sigaction *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sa_sigaction = on_signal;
    sa->sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa->sa_mask);
}

static int is_async(int sig)
{
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

static void die_by(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    ksigaction(sig, &sa, NULL);
    /* Blocked while the handler runs: delivered, with the default action, when it returns.
     * A hardware fault simply happens again on return. */
    raise(sig);
}

/* While our handler writes the report, the other terminating signals the program leaves to
 * us (and this one again) may come in: a second Ctrl-C, or timeout's SIGTERM after SIGINT, ends
 * the process at once (on_signal's first case) instead of waiting for the report. Those the
 * program had blocked where the signal interrupted it stay blocked. */
static void unblock_async(int sig, const ucontext_t *uc)
{
    static const int async[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t un;
    sigemptyset(&un);
    for (size_t i = 0; i < sizeof async / sizeof async[0]; i++) {
        int s = async[i];
        if (tp_exitpaths_armed(s) && (s == sig || !uc || !sigismember(&uc->uc_sigmask, s)))
            sigaddset(&un, s);
    }
    pthread_sigmask(SIG_UNBLOCK, &un, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    int e = errno;
    int state = atomic_load(&tp_state);
    if (state >= TP_FINISHING && !in_vfork_child()) {
        /* The report is being written, or was: the signal ends the process now, with the
         * files written so far (a snapshot stays whole: the file being written is removed).
         * Waiting for the report would turn `kill` or `timeout` into seconds. */
        if (!is_async(sig) && state == TP_FINISHING)
            tp_warn("signal %d while the report was written: report incomplete", sig);
        tp_report_abandon();
        die_by(sig);
        errno = e;
        return;
    }
    if (tp_guard) {
        if (is_async(sig)) {
            atomic_store(&tp_pending_signal, sig);
            errno = e;
            return;
        }
        tp_warn("signal %d inside the allocator or tprof itself: no report", sig);
    } else {
        char why[32] = "signal ";
        const char *name = sigabbrev_np(sig);
        strncat(why, name ? name : "?", sizeof why - 8);
        if (is_async(sig))
            unblock_async(sig, uc);
        tp_finish(why);
    }
    die_by(sig);
    errno = e;
}

void tp_signal_deferred(void)
{
    if (tp_guard)
        return;
    int sig = atomic_exchange(&tp_pending_signal, 0);
    if (!sig)
        return;
    tp_finish("signal");
    die_by(sig);
}

void tp_exitpaths_init(void)
{
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) {
        int sig = watched[i];
        struct sigaction old, sa;
        if (atomic_load(&sigs[sig].armed))
            continue; /* a forked child: armed already */
        if (ksigaction(sig, NULL, &old) < 0 || old.sa_handler != SIG_DFL)
            continue; /* ignored or handled by the program: leave it alone */
        standin_action(&sa);
        if (ksigaction(sig, &sa, NULL) == 0)
            atomic_store(&sigs[sig].armed, 1);
    }
}

int tp_exitpaths_armed(int sig)
{
    return sig > 0 && sig < NSIG && atomic_load(&sigs[sig].armed);
}

/* The kernel reset the action of an SA_RESETHAND handler to SIG_DFL on the way here: put the
 * stand-in back first (the handler may re-raise, with or without SA_NODEFER, or return from a
 * fault that happens again), then run the handler as the kernel would have. */
static void oneshot_entry(int sig, siginfo_t *si, void *uc)
{
    struct sigaction h = sigs[sig].oneshot, now, sa;
    int e = errno;
    if (ksigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL) {
        /* what a query now returns: SIG_DFL with the flags and mask kept by the kernel */
        sigs[sig].dfl = h;
        sigs[sig].dfl.sa_handler = SIG_DFL;
        sigs[sig].dfl_set = 1;
        standin_action(&sa);
        ksigaction(sig, &sa, NULL);
    }
    errno = e;
    if (h.sa_flags & SA_SIGINFO)
        h.sa_sigaction(sig, si, uc);
    else if (h.sa_handler != SIG_DFL && h.sa_handler != SIG_IGN)
        h.sa_handler(sig);
}

/* What the program would see in place of the kernel action k: its own requests, never ours. */
void tp_exitpaths_view(int sig, struct sigaction *k)
{
    if (!tp_exitpaths_armed(sig))
        return;
    /* glibc's own bit (SA_RESTORER) is on every action it installs, the program's included */
    int libc_bits = k->sa_flags & ~(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK |
                                    SA_RESTART | SA_NODEFER | SA_RESETHAND);
    void (*restorer)(void) = k->sa_restorer; /* glibc's, as on the program's own actions */
    if (k->sa_sigaction == on_signal) {
        if (sigs[sig].dfl_set) {
            *k = sigs[sig].dfl;
            k->sa_flags |= libc_bits;
            k->sa_restorer = restorer;
        } else {
            memset(k, 0, sizeof *k); /* as the process started: SIG_DFL, no flags */
            sigemptyset(&k->sa_mask);
        }
    } else if (k->sa_sigaction == oneshot_entry) {
        int flags = sigs[sig].oneshot.sa_flags | libc_bits;
        sigset_t mask = k->sa_mask;
        *k = sigs[sig].oneshot;
        k->sa_flags = flags;
        k->sa_mask = mask;
        k->sa_restorer = restorer;
    }
}

/* For the report signal's shim (reporter.c): the action to chain to when the program asks
 * for act, which for SIG_DFL on an armed signal is our stand-in. */
void tp_exitpaths_chain_action(int sig, struct sigaction *act)
{
    if (tp_exitpaths_armed(sig) && act->sa_handler == SIG_DFL)
        standin_action(act);
}

/* sigaction() for an armed signal (see the top of this file). */
int tp_exitpaths_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction cur;
    if (in_vfork_child()) /* it shares our memory, not our signal actions */
        return ksigaction(sig, act, old);
    if (old || act) {
        if (ksigaction(sig, NULL, &cur) < 0)
            return -1;
    }
    if (act) {
        struct sigaction k = *act;
        if (act->sa_handler == SIG_DFL) {
            sigs[sig].dfl = *act;
            sigs[sig].dfl_set = 1;
            standin_action(&k);
        } else if (act->sa_handler != SIG_IGN && (act->sa_flags & SA_RESETHAND)) {
            sigs[sig].oneshot = *act;
            k.sa_sigaction = oneshot_entry;
            k.sa_flags |= SA_SIGINFO;
        }
        if (ksigaction(sig, &k, NULL) < 0)
            return -1;
    }
    if (old) {
        tp_exitpaths_view(sig, &cur);
        *old = cur;
    }
    return 0;
}

/* ---- _exit and _Exit: not caught by destructors. Raw exit_group syscalls cannot be seen. ---- */

/* After vfork the child shares our memory: it must not touch tprof's state. Its pid differs
 * from ours but no atfork handler ran to tell us. */
static int in_vfork_child(void)
{
    return getpid() != tp_ident_pid();
}

static void *next_fn(const char *name)
{
    int g = tp_guard;
    tp_guard = 1;
    void *f = dlsym(RTLD_NEXT, name);
    tp_guard = g;
    return f;
}

/* _exit from a signal handler is common. If that handler interrupted tprof or the allocator on
 * this thread (the guard is set), writing the report could deadlock on a lock held below us. */
static void finish_before_exit(const char *why)
{
    if (!tp_running() || in_vfork_child())
        return;
    if (tp_guard)
        tp_warn("%s in a signal handler that interrupted the allocator or tprof: no report", why);
    else
        tp_finish(why);
}

TP_EXPORT TP_NOINSTR void _exit(int status)
{
    finish_before_exit("_exit");
    void (*real)(int) = (void (*)(int))next_fn("_exit");
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

TP_EXPORT TP_NOINSTR void _Exit(int status)
{
    finish_before_exit("_Exit");
    void (*real)(int) = (void (*)(int))next_fn("_Exit");
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

/* ---- quick_exit: glibc runs the at_quick_exit handlers, then its own internal _exit, which
 * no wrapper sees. Our handler, registered from our constructor (before the program's main),
 * runs after every handler the program registers later, so the report sees what they did. Not
 * registered from tp_init, which may run inside the first malloc: glibc allocates the list of
 * exit handlers while holding the lock that registering takes. ---- */

static void on_quick_exit(void)
{
    finish_before_exit("quick_exit");
}

void tp_exitpaths_start(void)
{
    static int registered;
    if (!registered && at_quick_exit(on_quick_exit) == 0)
        registered = 1;
}

/* ---- exec: the image ends here; write its report first. ---- */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

/* Before exec: write this image's report (the new image writes its own, named apart by
 * TPROF_IMAGE). Returns 1 if a report was written and must be taken back if exec fails. */
static int before_exec(void)
{
    if (!tp_running() || in_vfork_child())
        return 0;
    return tp_finish("exec");
}

static void after_failed_exec(int wrote, int e)
{
    if (wrote)
        tp_resume_after_failed_exec();
    errno = e;
}

/* The new image learns who it is from TPROF_IMAGE and TPROF_ROOT_PID in the environment exec
 * gives it, and the environment a program passes is often not one that we updated: a shell
 * execs with its own list of exported variables (bash even points environ at it), built before
 * it forked; Open MPI's launcher and Python's subprocess with env=... build theirs before the
 * fork too. With its parent's TPROF_IMAGE the new image would take the name of its parent's
 * report, or of the report the forked child wrote just before this exec, and overwrite it. So
 * whatever envp holds, exec gets this image's own entries: a copy of envp, on the stack (a vfork
 * child must not allocate; there this process's identity is still its parent's, which is right
 * for the new image: a new pid, its first image). An environment without LD_PRELOAD gets no
 * entry added: tprof is not coming along. */
#define ENV_ON_STACK 4096 /* entries; a longer environment is copied to the heap */

struct exec_env {
    char img[64], root[96];
    char **heap;
};

static size_t env_len(char *const envp[])
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n;
}

/* The environment to hand to exec: envp itself, or a fixed copy in v (room for n + 3 entries;
 * NULL: too long for the stack) or on the heap (x->heap, freed by the caller). */
static char *const *fix_env(char *const envp[], size_t n, char **v, struct exec_env *x)
{
    x->heap = NULL;
    if (!envp || !tp_ident_env(x->img, sizeof x->img, x->root, sizeof x->root))
        return envp;
    int stale = 0, has_img = 0, has_root = 0, preload = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(envp[i], "TPROF_IMAGE=", 12)) {
            has_img = 1;
            stale |= strcmp(envp[i], x->img) != 0;
        } else if (!strncmp(envp[i], "TPROF_ROOT_PID=", 15)) {
            has_root = 1;
            stale |= strcmp(envp[i], x->root) != 0;
        } else if (!strncmp(envp[i], "LD_PRELOAD=", 11)) {
            preload = 1;
        }
    }
    int add = preload && (!has_img || !has_root);
    if (!stale && !add)
        return envp;
    if (!v) {
        if (in_vfork_child())
            return envp;
        int g = tp_guard;
        tp_guard = 1;
        v = x->heap = tp_alloc((n + 3) * sizeof *v);
        tp_guard = g;
        if (!v)
            return envp;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(envp[i], "TPROF_IMAGE=", 12))
            v[k++] = x->img;
        else if (!strncmp(envp[i], "TPROF_ROOT_PID=", 15))
            v[k++] = x->root;
        else
            v[k++] = envp[i];
    }
    if (add && !has_img)
        v[k++] = x->img;
    if (add && !has_root)
        v[k++] = x->root;
    v[k] = NULL;
    return v;
}

enum exec_kind { EXEC_VE, EXEC_VPE, EXEC_FD, EXEC_AT };

/* Every exec wrapper ends here: the environment fixed, the report written, the real call. */
static int do_exec(enum exec_kind kind, int fd, const char *path, char *const argv[],
                   char *const envp[], int flags)
{
    static const char *const names[] = {"execve", "execvpe", "fexecve", "execveat"};
    void *real = next_fn(names[kind]);
    size_t n = env_len(envp);
    char *stack[n < ENV_ON_STACK ? n + 3 : 1];
    struct exec_env x;
    char *const *env = fix_env(envp, n, n < ENV_ON_STACK ? stack : NULL, &x);
    int wrote = before_exec();
    int rc = -1;
    errno = ENOSYS;
    if (real) {
        switch (kind) {
        case EXEC_VE:
        case EXEC_VPE:
            rc = ((execve_fn)real)(path, argv, env);
            break;
        case EXEC_FD:
            rc = ((fexecve_fn)real)(fd, argv, env);
            break;
        case EXEC_AT:
            rc = ((execveat_fn)real)(fd, path, argv, env, flags);
            break;
        }
    }
    int e = errno;
    if (x.heap)
        tp_free(x.heap);
    after_failed_exec(wrote, e);
    return rc;
}

/* execv and execvp are execve and execvpe with environ, which needs the same fixing. */
TP_EXPORT TP_NOINSTR int execve(const char *path, char *const argv[], char *const envp[])
{
    return do_exec(EXEC_VE, -1, path, argv, envp, 0);
}

TP_EXPORT TP_NOINSTR int execv(const char *path, char *const argv[])
{
    return do_exec(EXEC_VE, -1, path, argv, environ, 0);
}

TP_EXPORT TP_NOINSTR int execvp(const char *file, char *const argv[])
{
    return do_exec(EXEC_VPE, -1, file, argv, environ, 0);
}

TP_EXPORT TP_NOINSTR int execvpe(const char *file, char *const argv[], char *const envp[])
{
    return do_exec(EXEC_VPE, -1, file, argv, envp, 0);
}

TP_EXPORT TP_NOINSTR int fexecve(int fd, char *const argv[], char *const envp[])
{
    return do_exec(EXEC_FD, fd, NULL, argv, envp, 0);
}

TP_EXPORT TP_NOINSTR int execveat(int dirfd, const char *path, char *const argv[],
                                  char *const envp[], int flags)
{
    return do_exec(EXEC_AT, dirfd, path, argv, envp, flags);
}

/* execl, execlp, execle: gather the variadic arguments into an argv on the stack. */
#define GATHER_ARGS(arg0, ap, argv, envp_out)                                              \
    size_t n_ = 1;                                                                         \
    va_start(ap, arg0);                                                                    \
    while (va_arg(ap, char *))                                                             \
        n_++;                                                                              \
    va_end(ap);                                                                            \
    char *argv[n_ + 1];                                                                    \
    va_start(ap, arg0);                                                                    \
    argv[0] = (char *)arg0;                                                                \
    for (size_t i_ = 1; i_ <= n_; i_++)                                                    \
        argv[i_] = va_arg(ap, char *);                                                     \
    envp_out;                                                                              \
    va_end(ap)

TP_EXPORT TP_NOINSTR int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    GATHER_ARGS(arg, ap, argv, (void)0);
    return execv(path, argv);
}

TP_EXPORT TP_NOINSTR int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    GATHER_ARGS(arg, ap, argv, (void)0);
    return execvp(file, argv);
}

TP_EXPORT TP_NOINSTR int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char *const *envp;
    GATHER_ARGS(arg, ap, argv, envp = va_arg(ap, char *const *));
    return execve(path, argv, envp);
}
