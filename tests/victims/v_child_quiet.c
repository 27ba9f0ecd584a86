/* A program that watches its children: it counts SIGCHLD and, after asking for a report while it
 * runs (TPROF_SIGNAL=USR1, raised by itself) and waiting until that report's file exists, asks
 * the kernel for any child of its own. The tprof program that made the report ran as a child of
 * this process; the program must have seen neither a SIGCHLD nor a child to reap. Prints
 * "sigchld N wait E" (N signals; E the errno of waitpid(-1), ECHILD when there is no child). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t chld;

static void on_chld(int sig)
{
    (void)sig;
    chld++;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sigaction(SIGCHLD, &sa, NULL);
    char *p = malloc(4096);
    if (!p)
        return 1;
    memset(p, 1, 4096);
    raise(SIGUSR1);
    /* bounded: a report that never comes fails the test, it does not hang it */
    for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    struct timespec ts = {0, 100000000}; /* a late signal would still come in this time */
    nanosleep(&ts, NULL);
    int st;
    pid_t w = waitpid(-1, &st, WNOHANG);
    printf("sigchld %d wait %s\n", (int)chld, w < 0 && errno == ECHILD ? "ECHILD" : "child");
    free(p);
    return 0;
}
