/* The report signal in a forked child: the child raises TPROF_SIGNAL (SIGUSR1) twice, then waits
 * (at most 20 s) for its first on-demand report, argv[1].<its pid>.sig1.json (TPROF_JSON is
 * argv[1].%p.json); the parent raises it once. argv[2] = "handler": the program's own SIGUSR1 handler counts calls and
 * must run once per signal in each process. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_usr1(int sig) { (void)sig; got++; }

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (argc > 2 && !strcmp(argv[2], "handler"))
        signal(SIGUSR1, on_usr1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 3;
    if (pid == 0) {
        char report[4096];
        snprintf(report, sizeof report, "%s.%d.sig1.json", argv[1], (int)getpid());
        raise(SIGUSR1);
        raise(SIGUSR1);
        for (int i = 0; i < 2000 && access(report, F_OK) != 0; i++)
            usleep(10000);
        printf("child handler calls %d, report %s\n", (int)got,
               access(report, F_OK) == 0 ? "written" : "missing");
        return 0;
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return 4;
    raise(SIGUSR1);
    printf("parent handler calls %d, child %s %d\n", (int)got,
           WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return 0;
}
