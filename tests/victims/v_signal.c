/* Dies by a signal after allocating: the report is written, and the exit status is the
 * signal's (143 for SIGTERM). argv[1]: TERM, INT, SEGV or ABRT; argv[2] "thread": a second
 * thread is alive, waiting, when the signal comes. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *held;

static void *wait_forever(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    held = malloc(12345);
    pthread_t t;
    if (argc > 2 && !strcmp(argv[2], "thread") && pthread_create(&t, NULL, wait_forever, NULL))
        return 1;
    if (write(1, "before\n", 7) != 7)
        return 1;
    const char *s = argc > 1 ? argv[1] : "TERM";
    if (!strcmp(s, "SEGV"))
        *(volatile int *)(uintptr_t)8 = 1;
    if (!strcmp(s, "ABRT"))
        abort();
    kill(getpid(), !strcmp(s, "INT") ? SIGINT : SIGTERM);
    for (;;)
        pause();
}
