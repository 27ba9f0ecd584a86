/* Waits for the test: allocates 1000 bytes (kept) and 2000 (freed), prints "ready", then reads
 * stdin until end of file, then returns from main. For tests that act while the program runs or while its
 * report at exit is written (tests/proc_prompt.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *wait_alloc(size_t n) { return malloc(n); }

int main(void)
{
    void *kept = wait_alloc(1000);
    free(wait_alloc(2000));
    if (write(1, "ready\n", 6) != 6)
        return 1;
    char buf[256];
    while (read(0, buf, sizeof buf) > 0)
        ;
    (void)kept;
    return 0;
}
