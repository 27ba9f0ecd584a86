/* Ends with its stderr closed (as coreutils do at exit), or with descriptor 2 reused for a log
 * file of its own: argv[1] is "close" or "reuse LOG". Prints "done" on stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char *p = malloc(100);
    if (!p)
        return 1;
    strcpy(p, "done\n");
    fputs(p, stdout);
    fflush(stdout);
    free(p);
    if (argc > 1 && !strcmp(argv[1], "close")) {
        close(2);
    } else if (argc > 2 && !strcmp(argv[1], "reuse")) {
        close(2);
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd != 2)
            return 3;
        if (write(2, "mine\n", 5) != 5)
            return 4;
    }
    return 0;
}
