/* Children signalled as they start: each child is sent SIGTERM the moment fork returns in the
 * parent, often while the child is still in its fork handlers; each must die by it, as without
 * a profiler (a pool's terminate meets workers it has just started). Prints how many died by
 * SIGTERM; a child left alive makes the parent's alarm end the run. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100, died = 0;
    alarm(60);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            for (;;)
                pause();
        }
        if (p < 0)
            return 2;
        kill(p, SIGTERM);
        int st;
        if (waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
            died++;
    }
    printf("%d of %d died by SIGTERM\n", died, n);
    return died == n ? 0 : 1;
}
