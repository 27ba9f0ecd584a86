/* Prints a line first thing in main (on stderr, where tprof warns), then allocates and exits:
 * a warning about the settings must come before that line. With an argument N, it also forks
 * and runs itself N times as a child program, so that every process of the run has been through
 * tprof's start-up. Output goes through write(2) so that stdio allocates nothing. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void *early_site(size_t n) { return malloc(n); }

int main(int argc, char **argv)
{
    if (write(2, "main\n", 5) != 5)
        return 1;
    void *p = early_site(4096);
    free(p);
    int children = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 0; i < children; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            if (i % 2) /* a forked copy of this image */
                _exit(0);
            execl(argv[0], argv[0], (char *)NULL); /* a new image */
            _exit(127);
        }
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    return write(1, "done\n", 5) == 5 ? 0 : 1;
}
