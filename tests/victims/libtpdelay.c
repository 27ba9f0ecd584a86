/* The test suite's hold on the report at the end, preloaded before libtprof.so
 * (LD_PRELOAD="libtpdelay.so libtprof.so"): libtprof.so calls tprof_report_begins() as that report
 * begins, and this waits there, so that a test can send a signal while a report is in progress
 * however fast the report is (tests/proc_prompt.sh, tests/proc_hurry.sh).
 *
 * TPDELAY_MS: how long it waits, after saying so on stderr. A terminating signal that comes
 * meanwhile (to any thread) is seen by a handler put in front of libtprof.so's for the time of
 * the wait; the wait then ends TPDELAY_AFTER_MS after it (default: just past the report's
 * deadline, 100 ms after the signal: track/runtime.h), so that what the report cuts at its
 * deadline is cut at the same place every time, and a test can send a second signal before it
 * ends with a long one. */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The kernel's struct sigaction: libc's sigaction() would reach libtprof.so's wrapper, which
 * keeps its own handler in place and files ours as the program's. */
struct ksig {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};

static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define NSIGS (sizeof sigs / sizeof sigs[0])
static struct ksig before[NSIGS];
static _Atomic uint64_t came_ns;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void say(const char *line)
{
    ssize_t w = write(2, line, strlen(line));
    (void)w;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    uint64_t none = 0;
    atomic_compare_exchange_strong(&came_ns, &none, now_ns());
    for (size_t i = 0; i < NSIGS; i++) {
        if (sigs[i] != sig)
            continue;
        if (before[i].flags & SA_SIGINFO)
            ((void (*)(int, siginfo_t *, void *))before[i].handler)(sig, si, uc);
        else if (before[i].handler != (void *)SIG_DFL && before[i].handler != (void *)SIG_IGN)
            ((void (*)(int))before[i].handler)(sig);
    }
}

static long ms_of(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : dflt;
}

void tprof_report_begins(void)
{
    long delay = ms_of("TPDELAY_MS", 0);
    if (delay <= 0)
        return;
    uint64_t after = (uint64_t)ms_of("TPDELAY_AFTER_MS", 110) * 1000000ull;
    char line[128];
    snprintf(line, sizeof line, "tpdelay: the report waits %ld ms\n", delay);
    say(line);
    for (size_t i = 0; i < NSIGS; i++) {
        syscall(SYS_rt_sigaction, sigs[i], NULL, &before[i], sizeof before[i].mask);
        /* only where libtprof.so handles the signal: elsewhere it is the program's or the
         * default action, which the report does not change */
        if (before[i].handler == (void *)SIG_DFL || before[i].handler == (void *)SIG_IGN)
            continue;
        struct ksig k = before[i];
        k.handler = (void *)on_signal;
        k.flags |= SA_SIGINFO;
        syscall(SYS_rt_sigaction, sigs[i], &k, NULL, sizeof k.mask);
    }
    uint64_t end = now_ns() + (uint64_t)delay * 1000000ull;
    int told = 0;
    for (;;) {
        uint64_t t = now_ns(), until = end, c = atomic_load(&came_ns);
        if (c && !told) {
            say("tpdelay: a signal came: the report waits until its deadline\n");
            told = 1;
        }
        if (c && c + after < until)
            until = c + after;
        if (t >= until)
            break;
        uint64_t ns = until - t < 10000000 ? until - t : 10000000;
        struct timespec ts = {0, (long)ns};
        nanosleep(&ts, NULL);
    }
    for (size_t i = 0; i < NSIGS; i++)
        if (before[i].handler != (void *)SIG_DFL && before[i].handler != (void *)SIG_IGN)
            syscall(SYS_rt_sigaction, sigs[i], &before[i], NULL, sizeof before[i].mask);
}
