/* Ways out of a process image other than returning from main or exit() (those reach our
 * destructor): terminating signals, _exit/_Exit, and exec, which replaces the image without
 * running any destructor (PITFALLS P8, P9).
 *
 * Signals: a handler is installed only where the disposition is the default, so a program that
 * ignores SIGINT (a background job) or handles it itself keeps doing so. The handler writes the
 * report, restores the default action and re-raises, so the exit status is the one the program
 * would have had (143 for SIGTERM, a core for SIGSEGV). If the signal lands while this thread is
 * inside tprof or the allocator (the guard is set), writing the report there could deadlock on the
 * allocator's lock: an asynchronous signal is then deferred until the hook returns; a synchronous
 * fault there means the heap is corrupt, and we only say so. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exitpaths.h"
#include "heap.h"
#include "internal.h"

_Atomic int tp_pending_signal;

static const int watched[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT,
                              SIGSEGV, SIGBUS,  SIGFPE, SIGILL};

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
    sigaction(sig, &sa, NULL);
    /* Blocked while the handler runs: delivered, with the default action, when it returns.
     * A hardware fault simply happens again on return. */
    raise(sig);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    int e = errno;
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
        struct sigaction old;
        if (sigaction(watched[i], NULL, &old) < 0)
            continue;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL)
            continue; /* ignored or handled by the program: leave it alone */
        if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(watched[i], &sa, NULL);
    }
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

TP_EXPORT TP_NOINSTR void _exit(int status)
{
    if (tp_running() && !in_vfork_child())
        tp_finish("_exit");
    void (*real)(int) = (void (*)(int))next_fn("_exit");
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

TP_EXPORT TP_NOINSTR void _Exit(int status)
{
    if (tp_running() && !in_vfork_child())
        tp_finish("_Exit");
    void (*real)(int) = (void (*)(int))next_fn("_Exit");
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

/* ---- exec: the image ends here; write its report first. ---- */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

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

TP_EXPORT TP_NOINSTR int execve(const char *path, char *const argv[], char *const envp[])
{
    execve_fn real = (execve_fn)next_fn("execve");
    int wrote = before_exec();
    int rc = real ? real(path, argv, envp) : (errno = ENOSYS, -1);
    after_failed_exec(wrote, errno);
    return rc;
}

TP_EXPORT TP_NOINSTR int execv(const char *path, char *const argv[])
{
    execv_fn real = (execv_fn)next_fn("execv");
    int wrote = before_exec();
    int rc = real ? real(path, argv) : (errno = ENOSYS, -1);
    after_failed_exec(wrote, errno);
    return rc;
}

TP_EXPORT TP_NOINSTR int execvp(const char *file, char *const argv[])
{
    execv_fn real = (execv_fn)next_fn("execvp");
    int wrote = before_exec();
    int rc = real ? real(file, argv) : (errno = ENOSYS, -1);
    after_failed_exec(wrote, errno);
    return rc;
}

TP_EXPORT TP_NOINSTR int execvpe(const char *file, char *const argv[], char *const envp[])
{
    execve_fn real = (execve_fn)next_fn("execvpe");
    int wrote = before_exec();
    int rc = real ? real(file, argv, envp) : (errno = ENOSYS, -1);
    after_failed_exec(wrote, errno);
    return rc;
}

TP_EXPORT TP_NOINSTR int fexecve(int fd, char *const argv[], char *const envp[])
{
    fexecve_fn real = (fexecve_fn)next_fn("fexecve");
    int wrote = before_exec();
    int rc = real ? real(fd, argv, envp) : (errno = ENOSYS, -1);
    after_failed_exec(wrote, errno);
    return rc;
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
