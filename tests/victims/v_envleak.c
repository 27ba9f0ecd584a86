/* Starts one child, which prints its environment, with LD_PRELOAD as the test asks:
 *   v_envleak WAY PRELOAD CHILD [ARGS...]
 * WAY: execve (fork, then execve with a copy of environ), vfork (vfork, then execve), spawn
 * (posix_spawn with a copy of environ), spawnp (posix_spawnp), system or popen (environ itself,
 * changed with setenv/unsetenv; the child's arguments joined into one shell command).
 * PRELOAD: "-" keeps LD_PRELOAD as it is, "none" removes it, anything else replaces it ("" for
 * empty). First prints "victim <pid>". Exits with the child's status. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* A copy of environ with LD_PRELOAD as asked. */
static char **env_for(const char *preload, char *entry)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **v = calloc(n + 2, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 || !strcmp(preload, "-"))
            v[k++] = environ[i];
    if (v && strcmp(preload, "-") != 0 && strcmp(preload, "none") != 0) {
        snprintf(entry, 4200, "LD_PRELOAD=%s", preload);
        v[k++] = entry;
    }
    return v;
}

static int wait_child(pid_t pid)
{
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 100;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 101;
}

static int by_shell(const char *way, const char *preload, char **argv)
{
    char cmd[4096] = "";
    for (int i = 0; argv[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s%s", i ? " " : "", argv[i]);
    if (!strcmp(preload, "none"))
        unsetenv("LD_PRELOAD");
    else if (strcmp(preload, "-") != 0)
        setenv("LD_PRELOAD", preload, 1);
    if (!strcmp(way, "system")) {
        int st = system(cmd);
        return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 102;
    }
    FILE *p = popen(cmd, "r");
    if (!p)
        return 103;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0)
        fwrite(buf, 1, got, stdout);
    int st = pclose(p);
    return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 104;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *way = argv[1], *preload = argv[2];
    char entry[4200];
    printf("victim %ld\n", (long)getpid());
    fflush(stdout);
    if (!strcmp(way, "system") || !strcmp(way, "popen"))
        return by_shell(way, preload, argv + 3);
    char **env = env_for(preload, entry);
    if (!env)
        return 3;
    pid_t pid = -1;
    if (!strcmp(way, "spawn") || !strcmp(way, "spawnp")) {
        int rc = !strcmp(way, "spawn") ? posix_spawn(&pid, argv[3], NULL, NULL, argv + 3, env)
                                       : posix_spawnp(&pid, argv[3], NULL, NULL, argv + 3, env);
        if (rc != 0)
            return 4;
    } else if (!strcmp(way, "vfork")) {
        pid = vfork();
        if (pid == 0) {
            execve(argv[3], argv + 3, env);
            _exit(127);
        }
    } else {
        pid = fork();
        if (pid == 0) {
            execve(argv[3], argv + 3, env);
            _exit(127);
        }
    }
    return wait_child(pid);
}
