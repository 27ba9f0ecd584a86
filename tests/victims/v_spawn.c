/* posix_spawn and system(): each new program writes its own report. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void *spawned_alloc(size_t n) { return malloc(n); }

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        free(spawned_alloc(4444));
        return 5;
    }
    pid_t pid;
    char *args[] = {argv[0], "child", NULL};
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0)
        return 1;
    int st;
    waitpid(pid, &st, 0);
    printf("child status %d\n", WEXITSTATUS(st));
    return 0;
}
