/* fork while another thread holds tprof's locks. A thread loops through the paths that take
 * them: dlopen of an instrumented library and calls into it (the symbol-table lock: after every
 * dlclose each instrumented function is named again, and the new library's symbols are read),
 * a region with a new name (the op-name lock), dlclose (the module list's lock). The main thread
 * forks argv[1] times; each child does the same work once (an instrumented call, a new region)
 * and exits 0, which writes its report (the report and module-list locks).
 *
 * glibc itself (2.36) does not reset its loader's list lock in a fork child: a child forked while
 * another thread is inside dlopen, dlclose or dl_iterate_phdr hangs in its own next
 * dl_iterate_phdr, tprof or not. So argv[2] chooses what the fork may meet:
 *   "names":   the worker's dlopen and dlclose are kept apart from fork (a mutex), so the fork
 *              meets the symbol-table and op-name locks, and the child names a function (which
 *              lists the modules again);
 *   "modules": fork may meet dlclose (tprof's module-list lock), and the child does nothing that
 *              lists the modules; it leaves by _exit (which writes its report), as exit() would
 *              wait for glibc's exit-handler lock, which dlclose takes and fork does not reset.
 * A child that has not ended 30 s after it was forked is taken as deadlocked: it is killed and
 * no more children are forked. Prints "forks N, exited 0: N, deadlocked: 0"; exit status 0 when
 * every child exited 0. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tprof.h"

static atomic_int stop;
static int names_mode;
static pthread_mutex_t loader = PTHREAD_MUTEX_INITIALIZER; /* "names": no fork inside dlopen */

/* Not instrumented: in "modules" the child must not name a function (that lists the modules). */
__attribute__((no_instrument_function)) static void region(const char *what, int i)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%ld_%d", what, (long)getpid(), i);
    tprof_region_begin(name);
    tprof_region_end(name);
}

static int work(int i)
{
    if (names_mode)
        pthread_mutex_lock(&loader);
    void *h = dlopen("libtpfork.so", RTLD_NOW | RTLD_LOCAL);
    if (names_mode)
        pthread_mutex_unlock(&loader);
    if (!h)
        return -1;
    int (*f)(int) = (int (*)(int))dlsym(h, "fk_work");
    int r = f ? f(i) : -1;
    region("worker", i);
    if (names_mode)
        pthread_mutex_lock(&loader);
    dlclose(h);
    if (names_mode)
        pthread_mutex_unlock(&loader);
    return r;
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; !atomic_load(&stop); i++)
        work(i);
    return NULL;
}

/* Instrumented, like the whole program: after the worker's dlclose the child names it again. */
int child_work(int i)
{
    region("child", i);
    return 0;
}

/* The child's status, or -1 when it has not ended within 30 s (then it is killed). */
static int reap(pid_t pid)
{
    int st;
    for (int ms = 0; ms < 30000; ms += 10) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if (w < 0)
            return -2;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200, ok = 0, hung = 0;
    names_mode = argc > 2 && !strcmp(argv[2], "names");
    if (work(-1) != 0) { /* fk_work(x) = (x + 1) + 2x + ((x + 1) - 2x) = 2x + 2 */
        fprintf(stderr, "cannot load libtpfork.so: %s\n", dlerror());
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    for (int i = 0; i < n; i++) {
        if (names_mode)
            pthread_mutex_lock(&loader);
        pid_t pid = fork();
        if (pid == 0) {
            if (names_mode)
                exit(child_work(i));
            region("child", i);
            _exit(0); /* exit() would wait for the exit-handler lock dlclose may have held */
        }
        if (names_mode)
            pthread_mutex_unlock(&loader);
        if (pid < 0)
            break;
        int st = reap(pid);
        if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
        else if (st == -1 && ++hung)
            break;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("forks %d, exited 0: %d, deadlocked: %d\n", n, ok, hung);
    return ok == n ? 0 : 1;
}
