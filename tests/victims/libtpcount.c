/* Test helper, preloaded beside libtprof.so: counts process images independently of tprof. Each
 * image (its constructor) and each forked child (an atfork child handler) appends one line
 * "<pid> image|fork" to the file named by TPCOUNT_FILE. A vfork child runs neither, and writes
 * no report of its own under tprof either. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const char *what)
{
    const char *f = getenv("TPCOUNT_FILE");
    if (!f)
        return;
    int fd = open(f, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[64];
    int n = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), what);
    if (write(fd, line, (size_t)n) < 0) {
    }
    close(fd);
}

static void on_fork_child(void) { note("fork"); }

__attribute__((constructor)) static void count_image(void)
{
    note("image");
    pthread_atfork(NULL, NULL, on_fork_child);
}
