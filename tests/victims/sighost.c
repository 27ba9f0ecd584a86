/* A program with its own handlers for fatal signals, installed after tprof has loaded
 * (tests/proc_sighost.sh). It prints what it sees (the previous action, the action installed,
 * the siginfo its handler gets, the action inside the handler), then dies its own way.
 * argv[1]:
 *   segv-raise   SIGSEGV handler with SA_RESETHAND that prints and raises SIGSEGV again;
 *   segv-return  the same handler returning: the fault happens again, now with the default;
 *   term-exit    SIGTERM handler that prints and calls _exit(3);
 *   int-signal   SIGINT handler set with signal() that restores SIG_DFL with signal() and
 *                raises SIGINT again. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *held;
static int mode_raise;

static void say(const char *s)
{
    if (write(1, s, strlen(s)) < 0)
        _exit(99);
}

static const char *action_name(const struct sigaction *a, void (*mine)(int, siginfo_t *, void *))
{
    if (a->sa_handler == SIG_DFL)
        return "default";
    if (a->sa_handler == SIG_IGN)
        return "ignore";
    if ((a->sa_flags & SA_SIGINFO) && a->sa_sigaction == mine)
        return "mine";
    return "another handler";
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    char line[200];
    struct sigaction now;
    sigaction(sig, NULL, &now);
    snprintf(line, sizeof line, "handler: sig=%d signo=%d code=%d addr=%p self=%d action=%s\n", sig,
             si->si_signo, si->si_code, sig == SIGSEGV ? si->si_addr : NULL,
             sig != SIGSEGV && si->si_pid == getpid(), action_name(&now, on_fatal));
    say(line);
    if (sig == SIGTERM)
        _exit(3);
    if (mode_raise)
        raise(sig);
}

static void on_int(int sig)
{
    say("handler: SIGINT, back to the default\n");
    void (*prev)(int) = signal(sig, SIG_DFL);
    say(prev == on_int ? "handler: signal() returned mine\n" : "handler: signal() returned another\n");
    raise(sig);
}

static void install(int sig, int flags)
{
    struct sigaction sa, old, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    if (sigaction(sig, &sa, &old) < 0)
        _exit(98);
    sigaction(sig, NULL, &now);
    char line[200];
    snprintf(line, sizeof line, "installed: old=%s now=%s flags=%s mask=%s\n",
             action_name(&old, on_fatal), action_name(&now, on_fatal),
             (now.sa_flags & (SA_SIGINFO | SA_RESETHAND)) == (SA_SIGINFO | flags) ? "same" : "differ",
             sigismember(&now.sa_mask, SIGUSR2) ? "same" : "differ");
    say(line);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    held = malloc(12345);
    say("start\n");
    if (!strcmp(m, "segv-raise") || !strcmp(m, "segv-return")) {
        mode_raise = !strcmp(m, "segv-raise");
        install(SIGSEGV, SA_RESETHAND);
        *(volatile int *)(uintptr_t)16 = 1;
    } else if (!strcmp(m, "term-exit")) {
        install(SIGTERM, 0);
        kill(getpid(), SIGTERM);
    } else if (!strcmp(m, "int-signal")) {
        void (*prev)(int) = signal(SIGINT, on_int);
        say(prev == SIG_DFL ? "installed: old=default\n" : "installed: old=another\n");
        raise(SIGINT);
    } else {
        say("usage: sighost segv-raise|segv-return|term-exit|int-signal\n");
        return 2;
    }
    say("still alive\n");
    return 0;
}
