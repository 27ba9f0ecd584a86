/* A fork+exec chain two levels deep: image a forks a child that execs image b, which forks a
 * child that execs image c. Each image allocates under its own name and writes its own report;
 * each parent waits for its child and says so after it. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *a_work(size_t n) { return malloc(n); }
void *b_work(size_t n) { return malloc(n); }
void *c_work(size_t n) { return malloc(n); }

static int say(const char *s)
{
    size_t n = strlen(s);
    return write(1, s, n) == (ssize_t)n ? 0 : 1;
}

/* Fork a child that execs this program as `next`; 0 once it has exited with status 0. */
static int run_next(const char *self, const char *next)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", self, next, (char *)NULL);
        _exit(9);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 2;
    return 0;
}

int main(int argc, char **argv)
{
    const char *image = argc > 1 ? argv[1] : "a";
    if (!strcmp(image, "c")) {
        (void)c_work(3333);
        return say("c\n");
    }
    if (!strcmp(image, "b")) {
        (void)b_work(2222);
        return run_next(argv[0], "c") || say("b\n");
    }
    (void)a_work(1111);
    return run_next(argv[0], "b") || say("a\n");
}
