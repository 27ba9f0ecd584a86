/* syscall(): glibc runs pthread_atfork's handlers around fork() only. A program that copies
 * itself with the clone or clone3 system call made through syscall() skips them, and its child
 * would not know that it is a process of its own: no report (its pid is not ours: it would be
 * taken for a vfork child), and its parent's counts as its own. A clone that copies the process
 * as fork does (no CLONE_VM, no stack of its own: the child goes on from this very call, on a
 * copy of this stack) gets tprof's fork handlers here (preload/lifecycle.c), so that the child
 * starts its own counts as a forked child does. A clone made by the program's own instructions
 * is not seen here: lifecycle.c tells such a copy apart on its way out.
 *
 * Futex waits made through syscall() (some programs and libraries make their futex calls that
 * way) are timed as waiting for other threads (track/ops/wait.c). Every other system call goes
 * straight through, with two tests of its number and a jump.
 *
 * syscall() is variadic. On Linux's ABIs a variadic function's integer arguments travel exactly
 * as a fixed function's do (the same registers, then the same stack slots), so it is defined here
 * with its six arguments named, and libc's is called the same way: the common case is then a
 * jump to libc's with the caller's arguments in place. Read with va_arg they cost a frame of 300
 * bytes on every call: syscall(SYS_getppid) took 93 ns without tprof, 101 ns that way, 97 ns
 * this way (one 2-core machine). libc's syscall(), like the kernel, reads six arguments whatever
 * the call passes; the extra ones are the caller's leftovers, never used. unistd.h's declaration
 * of syscall is renamed out of the way for that. */
#include <errno.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#define syscall tp_unistd_syscall
#include <unistd.h>
#undef syscall

#include "preload/lifecycle.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "track/runtime.h"
#include "track/ops/ops.h"

typedef long (*syscall_fn)(long, long, long, long, long, long, long);

static struct tp_real real_syscall = {"syscall"};

static int is_clone(long nr)
{
#ifdef SYS_fork
    if (nr == SYS_fork)
        return 1;
#endif
    return nr == SYS_clone3 || nr == SYS_clone;
}

/* Whether a clone copies the process as fork does. clone3's arguments are read through the
 * kernel, which fails on a pointer that a direct read would fault on: the system call then
 * answers EFAULT itself, as without tprof. */
static int copies_like_fork(long nr, long a1, long a2)
{
    if (nr == SYS_clone)
        return !(a1 & CLONE_VM) && !a2; /* a2: the child's stack */
    if (nr != SYS_clone3)
        return 1; /* fork */
    struct clone_args ca;
    if ((unsigned long)a2 < CLONE_ARGS_SIZE_VER0)
        return 0;
    struct iovec here = {&ca, CLONE_ARGS_SIZE_VER0}, there = {(void *)a1, CLONE_ARGS_SIZE_VER0};
    if (process_vm_readv(getpid(), &here, 1, &there, 1, 0) != CLONE_ARGS_SIZE_VER0)
        return 0;
    return !(ca.flags & CLONE_VM) && !ca.stack;
}

/* A clone system call: with fork's handlers around it, as glibc's fork runs them, when it copies
 * the process as fork does. Apart from syscall() so that its frame is not built on every call. */
__attribute__((noinline)) static long clone_call(syscall_fn real, long nr, long a1, long a2,
                                                 long a3, long a4, long a5, long a6)
{
    if (!tp_fork_handlers() || !copies_like_fork(nr, a1, a2))
        return real(nr, a1, a2, a3, a4, a5, a6);
    tp_fork_prepare();
    long rc = real(nr, a1, a2, a3, a4, a5, a6);
    int e = errno;
    if (rc == 0)
        tp_fork_child();
    else
        tp_fork_parent();
    errno = e;
    return rc;
}

/* A futex operation that waits for another thread (FUTEX_PRIVATE_FLAG and the clock flag aside). */
static int is_futex_wait(long op)
{
    switch (op & FUTEX_CMD_MASK) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_WAIT_REQUEUE_PI:
    case FUTEX_LOCK_PI: return 1;
    default: return 0;
    }
}

/* A futex wait, timed as waiting (track/ops/wait.c). */
__attribute__((noinline)) static long futex_wait(syscall_fn real, long nr, long a1, long a2,
                                                 long a3, long a4, long a5, long a6)
{
    uint64_t t0 = tp_wait_enter();
    long rc = real(nr, a1, a2, a3, a4, a5, a6);
    tp_wait_leave(t0, TP_WAIT_FUTEX);
    return rc;
}

TP_EXPORT TP_NOINSTR TP_DISPATCH long syscall(long nr, long a1, long a2, long a3, long a4, long a5,
                                              long a6)
{
    syscall_fn real = (syscall_fn)tp_real_fn(&real_syscall);
    if (tp_unlikely(!real)) {
        errno = ENOSYS;
        return -1;
    }
    if (tp_unlikely(is_clone(nr)))
        return clone_call(real, nr, a1, a2, a3, a4, a5, a6);
    if (nr == SYS_futex && is_futex_wait(a2))
        return futex_wait(real, nr, a1, a2, a3, a4, a5, a6);
    return real(nr, a1, a2, a3, a4, a5, a6);
}
