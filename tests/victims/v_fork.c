/* fork: parent and child each write their own report. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void *before_fork(size_t n) { return malloc(n); }
void *in_child(size_t n) { return malloc(n); }
void *in_parent(size_t n) { return malloc(n); }

int main(void)
{
    void *inherited = before_fork(1000);
    pid_t pid = fork();
    if (pid == 0) {
        void *c = in_child(2000);  /* child: 1000 inherited + 2000 = peak 3000 */
        free(c);
        free(inherited);           /* a free of an inherited block is known, not "unknown" */
        exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    void *p = in_parent(5000);     /* parent: peak 6000 */
    free(p);
    free(inherited);
    return write(1, "ok\n", 3) == 3 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
