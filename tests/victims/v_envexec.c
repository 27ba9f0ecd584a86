/* A launcher that copies its environment before fork and hands the copy to execve in the child
 * (Open MPI's launcher, Python's subprocess with env=... do this): the parent, the child before
 * exec and the image it execs each write their own report. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void *parent_work(size_t n) { return malloc(n); }
void *child_work(size_t n) { return malloc(n); }
void *execd_work(size_t n) { return malloc(n); }

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "execd")) {
        (void)execd_work(3333);
        return write(1, "execd\n", 6) == 6 ? 0 : 1;
    }
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env); /* the copy, taken before fork */
    if (!env)
        return 1;
    memcpy(env, environ, n * sizeof *env);
    (void)parent_work(1111);
    pid_t pid = fork();
    if (pid == 0) {
        (void)child_work(2222);
        char *args[] = {argv[0], "execd", NULL};
        execve("/proc/self/exe", args, env);
        _exit(9);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 2;
    return write(1, "parent\n", 7) == 7 ? 0 : 1;
}
