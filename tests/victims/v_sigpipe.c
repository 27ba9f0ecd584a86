/* Writes numbered lines to stdout until the pipe breaks, for `v_sigpipe | head -1`
 * (tests/proc_sigpipe.sh): first 7 blocks of 100 bytes from pipe_alloc, kept, then no allocation
 * at all while it writes, so that the report's figures are exact however far it got. Dies of
 * SIGPIPE; with argv[1] "ignore" it ignores SIGPIPE, and returns 3 when the write fails (EPIPE). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *pipe_alloc(size_t n) { return malloc(n); }

static void *kept[7];

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "ignore"))
        signal(SIGPIPE, SIG_IGN);
    for (int i = 0; i < 7; i++)
        kept[i] = pipe_alloc(100);
    char line[32];
    for (unsigned long i = 0;; i++) {
        int n = snprintf(line, sizeof line, "line %lu\n", i);
        if (write(1, line, (size_t)n) < 0)
            return errno == EPIPE ? 3 : 4;
    }
}
