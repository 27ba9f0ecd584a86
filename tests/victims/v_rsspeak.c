/* A program with FLOPs and a small, known peak RSS (an 8 MiB buffer, touched and freed). Given a
 * file name, it first asks for a report while it runs (TPROF_SIGNAL=USR1, raised by itself) and
 * waits until that report's file exists. Last, it prints its own peak RSS in KiB (ru_maxrss),
 * which a native run gives as the program's own. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <tprof.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t n = (size_t)8 << 20;
    char *p = malloc(n);
    if (!p)
        return 1;
    memset(p, 1, n);
    tprof_region_begin("work");
    tprof_add_flops(1000000);
    tprof_add_bytes(n);
    tprof_region_end("work");
    free(p);
    if (argc > 1) {
        raise(SIGUSR1);
        /* bounded: a report that never comes fails the test, it does not hang it */
        for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 1;
    printf("%ld\n", ru.ru_maxrss);
    return 0;
}
