/* Fills a file system for tests/out_nospace.sh: writes FIRST bytes to PATH, then STEPS chunks of
 * 8 KiB, before each (with a fifth argument "signal") sending itself SIGUSR1, the TPROF_SIGNAL
 * that makes tprof write a report, so that reports are tried between the program's own writes.
 * Prints "wrote N" through stdio (buffered: lost if the process is killed at exit) and exits 0
 * only if every write succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int put(int fd, size_t n)
{
    static char block[8192];
    while (n) {
        size_t k = n < sizeof block ? n : sizeof block;
        ssize_t w = write(fd, block, k);
        if (w <= 0)
            return -1;
        n -= (size_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    size_t first = strtoul(argv[2], NULL, 10), total = first;
    int steps = atoi(argv[3]), sig = argc > 4 && !strcmp(argv[4], "signal");
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char *keep = malloc(1000);
    if (fd < 0 || put(fd, first) < 0) {
        printf("first write failed: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0; i < steps; i++) {
        if (sig)
            kill(getpid(), SIGUSR1);
        struct timespec ts = {0, 12000000};
        nanosleep(&ts, NULL); /* gives a periodic snapshot its chance; nothing depends on it */
        if (put(fd, 8192) < 0) {
            printf("write %d failed: %s\n", i, strerror(errno));
            return 1;
        }
        total += 8192;
    }
    close(fd);
    printf("wrote %zu\n", total);
    free(keep);
    return 0;
}
