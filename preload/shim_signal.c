/* Signals: the terminating signals that end a process image without our destructor, and the
 * sigaction and signal shims, which keep the program's view of its signal actions its own
 * (_exit, quick_exit and exec are shim_exit.c).
 *
 * A handler is installed only where the disposition is the default, so a program that
 * ignores SIGINT (a background job) or handles it itself keeps doing so. The handler writes the
 * report, restores the default action and re-raises, so the exit status is the one the program
 * would have had (143 for SIGTERM, 141 for SIGPIPE, a core for SIGSEGV). If the signal lands while
 * this thread is inside tprof or the allocator (the guard is set), writing the report there could
 * deadlock on the allocator's lock: an asynchronous signal (or SIGPIPE) is then deferred until the
 * hook returns; a synchronous fault there means the heap is corrupt, and we only say so.
 *
 * A signal that comes while the report at the end is being written: the first asynchronous one
 * (or SIGPIPE), when the program's exit, _exit or exec started that report, lets it finish within
 * a deadline (track/runtime.h), and the process then dies by that signal. A process pool's
 * terminate sends SIGTERM to workers that may be in _exit writing their reports; they were lost.
 * A second signal, or any signal while a signal's own report is written, ends the process at once.
 *
 * Such a signal is "armed": our handler stands in for its default action. When the program
 * later installs its own action for it (the sigaction and signal shims below), we stay out of
 * the way, unlike profilers that keep their handler first and call the program's from it
 * (libmonitor, which also drops the program's SA_ONSTACK and SA_RESETHAND):
 * - a handler or SIG_IGN is installed for real, with the program's flags and mask, so the kernel
 *   delivers the signal to it exactly as without tprof (same siginfo, alternate stack, mask);
 * - SIG_DFL installs our stand-in again, so dying by that signal still writes the report (a
 *   handler that restores the default and re-raises, or returns from a fault that happens again);
 * - a handler with SA_RESETHAND is entered through oneshot_entry(), which puts the stand-in back
 *   where the kernel has just put SIG_DFL, then calls the handler with the kernel's arguments;
 * - queries report what the program installed, never our stand-in or entry.
 * A handler that calls _exit reaches our _exit (shim_exit.c); one that calls abort() reaches
 * SIGABRT's stand-in. Not covered: a program's SIGABRT handler that returns from abort() (glibc
 * restores the default inside libc, out of our sight), and actions set through sigset(),
 * bsd_signal() or the raw system call. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/lifecycle.h"
#include "preload/real.h"
#include "preload/reporter.h"
#include "preload/shim.h"
#include "preload/shim_signal.h"
#include "common/clock.h"
#include "track/sym/sym.h"
#include "track/heap/heap.h"
#include "track/out/out.h"
#include "track/runtime.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

_Atomic int tp_pending_signal;
/* The process the deferred signal came to: after a fork, the child's copy of tp_pending_signal
 * may be its parent's signal, or its own, sent before its fork handlers ran (a pool's terminate
 * signals a worker it has just started). */
static _Atomic pid_t pending_pid;

static const int watched[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                              SIGABRT, SIGSEGV, SIGBUS, SIGFPE,  SIGILL};

/* Per armed signal: what the program last asked for when it asked for SIG_DFL (flags and mask,
 * reported back while our stand-in is installed), and its action with SA_RESETHAND (called by
 * oneshot_entry). Written by the shims before the kernel action changes, read in handlers. */
static struct {
    _Atomic int armed;
    int dfl_set;              /* the program has asked for SIG_DFL itself */
    struct sigaction dfl;     /* that request */
    struct sigaction oneshot; /* the program's SA_RESETHAND action */
} sigs[NSIG];

static sigaction_fn real_sigaction(void)
{
    static sigaction_fn fn;
    if (!fn)
        fn = (sigaction_fn)tp_real("sigaction");
    return fn;
}

/* sigaction() itself is ours (below): everything here goes to the real one. */
static int ksigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigaction_fn real = real_sigaction();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(sig, act, old);
}

static void on_signal(int sig, siginfo_t *si, void *uc);
static int armed(int sig);

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

/* Not a fault of the thread it lands on: an asynchronous signal, or a broken pipe (raised by the
 * program's own write to a pipe whose reader went away, as in `./model | head`). Such a signal can
 * wait until the hook it interrupted returns, and may hurry a report rather than end it. */
static int is_external(int sig)
{
    return is_async(sig) || sig == SIGPIPE;
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
        if (armed(s) && (s == sig || !uc || !sigismember(&uc->uc_sigmask, s)))
            sigaddset(&un, s);
    }
    pthread_sigmask(SIG_UNBLOCK, &un, NULL);
}

/* The first external signal that comes while the report at the end is written, unless a
 * terminating signal started that report, hurries it (track/runtime.h): 1 if this one does. */
static int take_hurry(int sig)
{
    int none = 0;
    if (!is_external(sig) || tp_finishing_on_signal() ||
        !atomic_compare_exchange_strong(&tp_hurry_signal, &none, sig))
        return 0;
    atomic_store(&tp_hurry_deadline_ns, tp_now_ns() + tp_hurry_grace_ns);
    return 1;
}

/* A terminating signal while the report at the end is written (by this thread or another). The
 * first external one, when the report is not a signal's own, lets it finish; any other ends the
 * process now, with the files written so far (a snapshot stays whole: the file being written is
 * removed). Waiting for a report that a signal started would turn `kill` or `timeout` into
 * seconds. */
static void during_report(int sig)
{
    int state = atomic_load(&tp_state);
    if (state == TP_FINISHING && take_hurry(sig))
        return; /* the thread that writes the report ends the process (tp_signal_deferred) */
    if (!is_external(sig) && state == TP_FINISHING)
        tp_warn("signal %d while the report was written: report incomplete", sig);
    tp_report_abandon();
    die_by(sig);
}

static int finishing(void)
{
    return atomic_load(&tp_state) >= TP_FINISHING && !tp_in_vfork_child();
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    int e = errno;
    if (finishing()) {
        during_report(sig);
        errno = e;
        return;
    }
    if (tp_guard) {
        if (is_external(sig)) {
            atomic_store(&pending_pid, (pid_t)syscall(SYS_getpid));
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
        atomic_store(&tp_dw_in_handler, 1);
        if (!tp_finish(why) && finishing()) {
            during_report(sig); /* another thread's report began first */
            errno = e;
            return;
        }
    }
    die_by(sig);
    errno = e;
}

void tp_signal_deferred(void)
{
    int hurry = atomic_load(&tp_hurry_signal);
    if (hurry && atomic_load(&tp_state) == TP_DONE && !tp_in_vfork_child()) {
        /* The report it let finish is written. In exit(), what the program printed to stdio is
         * still in its buffers, which exit would flush next: flushed as exit flushes them (without
         * taking the streams' locks, which another thread may hold). It came to another thread if
         * this one blocks it: unblocked, it is delivered here now. */
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, hurry);
        if (tp_finishing_at_exit())
            fcloseall();
        die_by(hurry);
        pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    }
    if (tp_guard)
        return;
    int sig = atomic_exchange(&tp_pending_signal, 0);
    if (!sig)
        return;
    atomic_store(&tp_dw_in_handler, 1);
    char why[32] = "signal ";
    const char *name = sigabbrev_np(sig);
    strncat(why, name ? name : "?", sizeof why - 8);
    if (!tp_finish(why) && finishing()) {
        during_report(sig);
        return;
    }
    die_by(sig);
}

void tp_shim_signal_init(void)
{
    tp_lifecycle_on_release(tp_signal_deferred);
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

static int armed(int sig)
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
static void view(int sig, struct sigaction *k)
{
    if (!armed(sig))
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

/* For the report signal's shim: the action to chain to when the program asks
 * for act, which for SIG_DFL on an armed signal is our stand-in. */
static void chain_action(int sig, struct sigaction *act)
{
    if (armed(sig) && act->sa_handler == SIG_DFL)
        standin_action(act);
}

/* sigaction() for an armed signal (see the top of this file). */
static int armed_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction cur;
    if (tp_in_vfork_child()) /* it shares our memory, not our signal actions */
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
        view(sig, &cur);
        *old = cur;
    }
    return 0;
}

/* ---- the report signal (TPROF_SIGNAL): its handler only wakes the report thread
 * (preload/reporter.c) and chains to the program's own handler ---- */

static int installed;
static struct sigaction host_action; /* what the program had for TPROF_SIGNAL */

static void on_report_signal(int sig, siginfo_t *si, void *uc)
{
    int e = errno;
    tp_reporter_request();
    /* The program's own handler for that signal still runs. */
    if ((host_action.sa_flags & SA_SIGINFO) && host_action.sa_sigaction)
        host_action.sa_sigaction(sig, si, uc);
    else if (!(host_action.sa_flags & SA_SIGINFO) && host_action.sa_handler != SIG_DFL &&
             host_action.sa_handler != SIG_IGN)
        host_action.sa_handler(sig);
    errno = e;
}

/* A program that installs its own handler for TPROF_SIGNAL after we did would silently turn
 * reports on demand off: the sigaction and signal shims keep ours installed and record the
 * program's as the one to chain to, reporting the program's own previous action back to it.
 * The fatal signals whose default action tprof stands in for (armed) get the program's actions
 * installed for real. */
static int ours(int sig)
{
    return installed && tp_cfg.signal && sig == tp_cfg.signal;
}

TP_EXPORT TP_NOINSTR int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigaction_fn real = real_sigaction();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (sig == SIGPROF && !tp_guard) {
        if (!act && (!old || tp_sample_view(old)))
            return 0; /* a query, while tprof samples: the program's own action */
        if (act)
            tp_sample_yield(); /* the program's own SIGPROF: tprof's CPU samples stop first */
    }
    if (ours(sig)) {
        if (old) {
            *old = host_action;
            view(sig, old);
        }
        if (act) {
            host_action = *act;
            chain_action(sig, &host_action);
        }
        return 0;
    }
    if (armed(sig))
        return armed_sigaction(sig, act, old);
    return real(sig, act, old);
}

TP_EXPORT TP_NOINSTR sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &old) < 0)
        return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
                                       : old.sa_handler;
}

void tp_report_signal_start(void)
{
    if (installed || !tp_cfg.signal)
        return;
    installed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_report_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction_fn real = real_sigaction();
    if (real)
        real(tp_cfg.signal, &sa, &host_action);
}

void tp_shim_signal_fork_child(void)
{
    /* A signal deferred in the parent, or one that hurried its report, was the parent's; one
     * deferred in this child since the fork is its own, acted on as the fork handlers end. */
    if (atomic_load(&pending_pid) != (pid_t)syscall(SYS_getpid))
        atomic_store(&tp_pending_signal, 0);
    atomic_store(&tp_hurry_signal, 0);
    atomic_store(&tp_hurry_deadline_ns, 0);
    /* The child inherits the report signal's handler with the rest of its parent's signal actions
     * (the report thread is started again elsewhere). Installing it again would record our own
     * handler as the program's, to chain to: it would call itself until the stack ran out. */
}
