/* A long-running loop for reports on demand and snapshots. argv[1]: iterations (20 ms each);
 * argv[2] = "handler": install the program's own SIGUSR1 handler, which must still run. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_usr1(int sig) { (void)sig; got++; }

void *step_alloc(size_t n) { return malloc(n); }

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 30;
    if (argc > 2 && !strcmp(argv[2], "handler"))
        signal(SIGUSR1, on_usr1);
    void *keep = NULL;
    for (int i = 0; i < iters; i++) {
        free(keep);
        keep = step_alloc(1000 * (size_t)(i + 1));
        usleep(20000);
    }
    free(keep);
    printf("iterations %d, handler calls %d\n", iters, (int)got);
    return 0;
}
