/* The exit paths a host program may take, one per mode, for tests/host_sweep.sh: each allocates
 * (so that the report has something to say), writes to stdout and stderr, then leaves:
 *   _exit      through _exit(3), skipping atexit and stdio's flush (flushed by hand first)
 *   abort      through abort()
 *   exec       by execv of /bin/echo without a fork
 *   segv       a SIGSEGV whose handler recovers with siglongjmp, then a normal return
 *   quick_exit through quick_exit(5), with an at_quick_exit handler that prints
 *   kill       under tprof (LD_PRELOAD set), waits until the file named by argv[2] exists (a
 *              snapshot of the report); then SIGKILL to itself */
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static sigjmp_buf recover;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(recover, 1);
}

static void on_quick_exit(void)
{
    printf("at_quick_exit handler\n");
    fflush(stdout);
}

static char *keep[16];

static void allocate(void)
{
    for (int i = 0; i < 16; i++) {
        keep[i] = malloc(1000 + (size_t)i);
        memset(keep[i], i, 1000);
    }
    for (int i = 0; i < 8; i++) {
        free(keep[i]);
        keep[i] = NULL;
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    allocate();
    printf("mode %s\n", mode);
    fprintf(stderr, "to stderr\n");
    fflush(stdout);
    if (!strcmp(mode, "_exit"))
        _exit(3);
    if (!strcmp(mode, "abort"))
        abort();
    if (!strcmp(mode, "exec")) {
        execl("/bin/echo", "echo", "after exec", (char *)NULL);
        return 1;
    }
    if (!strcmp(mode, "segv")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_segv;
        sigaction(SIGSEGV, &sa, NULL);
        if (!sigsetjmp(recover, 1))
            *(volatile int *)(uintptr_t)8 = 1;
        printf("recovered\n");
        return 0;
    }
    if (!strcmp(mode, "quick_exit")) {
        at_quick_exit(on_quick_exit);
        quick_exit(5);
    }
    if (!strcmp(mode, "kill") && argc > 2) {
        struct stat st;
        struct timespec ms = {0, 1000000};
        /* Bounded: 60 s of 1 ms sleeps, then killed anyway (the test then finds no report). */
        for (int i = 0; getenv("LD_PRELOAD") && i < 60000 && stat(argv[2], &st) != 0; i++)
            nanosleep(&ms, NULL);
        raise(SIGKILL);
    }
    return 0;
}
