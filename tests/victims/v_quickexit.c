/* quick_exit: glibc runs the at_quick_exit handlers, then ends the process with its own internal
 * _exit (no destructor runs). The report must still be written, once, after the program's
 * handler: the handler frees the 4321-byte block. Output "main" then "handler" (stdio is not
 * flushed by quick_exit: the program flushes it itself), exit status 3. argv[1] = "twice": the
 * handler is registered twice and runs twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *kept;

void *before_quick(size_t n) { return malloc(n); }
void *leaked(size_t n) { return malloc(n); }

static void handler(void)
{
    free(kept);
    kept = NULL;
    printf("handler\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    kept = before_quick(4321);
    void *p = leaked(1234);
    (void)p;
    at_quick_exit(handler);
    if (argc > 1 && !strcmp(argv[1], "twice"))
        at_quick_exit(handler);
    printf("main\n");
    fflush(stdout);
    quick_exit(3);
}
