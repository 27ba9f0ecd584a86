/* Test helper, preloaded beside libtprof.so: counts process images independently of tprof. Each
 * image (its constructor) and each forked child (an atfork child handler) appends one line
 * "<pid> image <executable>" or "<pid> fork" to the file named by TPCOUNT_FILE. A vfork child
 * runs neither, and writes no report of its own under tprof either. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const char *what, const char *exe)
{
    const char *f = getenv("TPCOUNT_FILE");
    if (!f)
        return;
    int fd = open(f, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[4200];
    int n = snprintf(line, sizeof line, "%ld %s%s%s\n", (long)getpid(), what, exe ? " " : "",
                     exe ? exe : "");
    if (write(fd, line, (size_t)n) < 0) {
    }
    close(fd);
}

static void on_fork_child(void) { note("fork", NULL); }

__attribute__((constructor)) static void count_image(void)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    note("image", exe);
    pthread_atfork(NULL, NULL, on_fork_child);
}
