/* exit() called from a second thread while main is blocked: the report is still written and the
 * exit status is the one passed to exit(). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

void *held;

static void *worker(void *arg)
{
    (void)arg;
    held = malloc(7000);
    if (write(1, "bye\n", 4) != 4)
        exit(1);
    exit(3);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (;;)
        pause();
}
