/* Dies by a signal after allocating: the report is written, and the exit status is the
 * signal's (143 for SIGTERM). argv[1]: TERM, INT, SEGV or ABRT. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *held;

int main(int argc, char **argv)
{
    held = malloc(12345);
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
