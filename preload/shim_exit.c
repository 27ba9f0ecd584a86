/* Ways out of a process image other than returning from main or exit() (those reach our
 * destructor) and other than a signal (shim_signal.c): _exit/_Exit, quick_exit, and exec, which
 * replaces the image without running any destructor. Each writes the report once through
 * tp_finish(), then lets the program go the way it would have gone without tprof. Exec also
 * gets the new image's environment fixed (preload/execenv.h), so that it learns who it is, and
 * leaves the report's plain name to the new image. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/execenv.h"
#include "preload/lifecycle.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "preload/shim_exit.h"
#include "track/out/out.h"
#include "track/runtime.h"

/* ---- _exit and _Exit: not caught by destructors. Raw exit_group syscalls cannot be seen. ---- */

/* _exit from a signal handler is common. If that handler interrupted tprof or the allocator on
 * this thread (the guard is set), writing the report could deadlock on a lock held below us. */
static void finish_before_exit(const char *why)
{
    if (!tp_running() || tp_in_vfork_child())
        return;
    if (tp_guard)
        tp_warn("%s in a signal handler that interrupted the allocator or tprof: no report", why);
    else
        tp_finish(why);
}

TP_EXPORT TP_NOINSTR void _exit(int status)
{
    finish_before_exit("_exit");
    void (*real)(int) = (void (*)(int))tp_real("_exit");
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

TP_EXPORT TP_NOINSTR void _Exit(int status)
{
    finish_before_exit("_Exit");
    void (*real)(int) = (void (*)(int))tp_real("_Exit");
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

void tp_shim_exit_start(void)
{
    static int registered;
    if (!registered && at_quick_exit(on_quick_exit) == 0)
        registered = 1;
}

/* ---- exec: the image ends here; write its report first. ---- */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

/* Before exec: this image's report ends here. The plain report names go to the image exec
 * starts, which cannot know yet whether it will exec in turn; this one writes its report under
 * its own name, if it did something (track/out/output.c). Returns 1 if the report was finished and
 * must be taken back if exec fails. */
static int before_exec(const char *target)
{
    if (!tp_running() || tp_in_vfork_child())
        return 0;
    tp_output_exec_target(target);
    return tp_finish("exec");
}

/* The program goes on: so does its profile, which at the end takes the plain names again. */
static void after_failed_exec(int wrote, int e)
{
    if (wrote) {
        tp_output_exec_failed();
        tp_resume_after_failed_exec();
    }
    errno = e;
}

enum exec_kind { EXEC_VE, EXEC_VPE, EXEC_FD, EXEC_AT };

/* An exec that cannot succeed does not end this image: a shell, or Python's os.execvp, tries
 * each directory of PATH in turn with execve, and each miss would cost a report written and
 * taken back. Only a path is checked (execvp with a bare name searches PATH itself). */
static int cannot_exec(enum exec_kind kind, const char *path)
{
    if (!path || (kind != EXEC_VE && kind != EXEC_VPE) || (kind == EXEC_VPE && !strchr(path, '/')))
        return 0;
    return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0;
}

/* Every exec wrapper ends here: the environment fixed, the report written, the real call. */
static int do_exec(enum exec_kind kind, int fd, const char *path, char *const argv[],
                   char *const envp[], int flags)
{
    static const char *const names[] = {"execve", "execvpe", "fexecve", "execveat"};
    void *real = tp_real(names[kind]);
    size_t n = tp_execenv_len(envp);
    char *stack[n < TP_ENV_ON_STACK ? n + 3 : 1];
    struct tp_execenv x;
    char *const *env = tp_execenv_fix(envp, n, n < TP_ENV_ON_STACK ? stack : NULL, &x);
    int wrote = 0;
    if (!cannot_exec(kind, path))
        wrote = before_exec(kind == EXEC_FD || (path && !*path) ? NULL : path);
    int rc = -1;
    errno = ENOSYS;
    if (real) {
        switch (kind) {
        case EXEC_VE:
        case EXEC_VPE: rc = ((execve_fn)real)(path, argv, env); break;
        case EXEC_FD: rc = ((fexecve_fn)real)(fd, argv, env); break;
        case EXEC_AT: rc = ((execveat_fn)real)(fd, path, argv, env, flags); break;
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
#define GATHER_ARGS(arg0, ap, argv, envp_out)                                                      \
    size_t n_ = 1;                                                                                 \
    va_start(ap, arg0);                                                                            \
    while (va_arg(ap, char *))                                                                     \
        n_++;                                                                                      \
    va_end(ap);                                                                                    \
    char *argv[n_ + 1];                                                                            \
    va_start(ap, arg0);                                                                            \
    argv[0] = (char *)arg0;                                                                        \
    for (size_t i_ = 1; i_ <= n_; i_++)                                                            \
        argv[i_] = va_arg(ap, char *);                                                             \
    envp_out;                                                                                      \
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
