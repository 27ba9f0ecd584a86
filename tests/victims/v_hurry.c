/* The program's exit with SIGTERM blocked on the thread that writes the report
 * (tests/proc_hurry.sh): a second thread waits in pause(), so a SIGTERM sent to the process goes
 * to it. main allocates 3 blocks of 300 bytes from hurry_alloc (kept), blocks SIGTERM, prints
 * "ready", reads stdin until end of file and returns from main. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

void *hurry_alloc(size_t n) { return malloc(n); }

static void *kept[3];

static void *wait_forever(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, wait_forever, NULL))
        return 1;
    for (int i = 0; i < 3; i++)
        kept[i] = hurry_alloc(300);
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, NULL);
    if (write(1, "ready\n", 6) != 6)
        return 1;
    char buf[256];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}
