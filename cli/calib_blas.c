/* The sgemm peak for `tprof calibrate` (CLI only, never linked into libtprof.so): a large sgemm
 * through the system BLAS, loaded with dlopen(RTLD_LOCAL) and called through dlsym(handle),
 * never through the global scope, so that the call could never reach tprof's cblas_sgemm
 * wrapper. Each thread count is measured in a child process, because most BLAS libraries read
 * their thread count once, when they initialise, and a crashing BLAS cannot take tprof down. */
#include "common/pages.h"
#include "report/peaks/peaks.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*set_threads_fn)(int);
typedef int (*get_threads_fn)(void);
typedef char *(*get_config_fn)(void);

/* The matrices come from mmap: the child's heap stays the BLAS's alone. */
static void *map(size_t bytes)
{
    return tp_pages_map(bytes, 0);
}

/* ---- sgemm through the BLAS ---- */

static void set_thread_env(int threads)
{
    static const char *vars[] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS",
                                 "BLIS_NUM_THREADS", "MKL_NUM_THREADS"};
    char v[16];
    snprintf(v, sizeof v, "%d", threads);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        setenv(vars[i], v, 1);
}

/* The first BLAS of list that exports cblas_sgemm, with its path and OpenBLAS's thread count
 * and build configuration in out; NULL with out->error set when none does. */
static sgemm_fn load_sgemm(const char **list, size_t nlist, int threads, struct tp_blas_run *out)
{
    void *h = NULL;
    sgemm_fn f = NULL;
    char tried[200] = "";
    for (size_t i = 0; i < nlist && !f; i++) {
        h = dlopen(list[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            f = (sgemm_fn)dlsym(h, "cblas_sgemm");
        if (h && !f)
            dlclose(h);
        size_t len = strlen(tried);
        snprintf(tried + len, sizeof tried - len, "%s%s", i ? ", " : "", list[i]);
    }
    if (!f) {
        snprintf(out->error, sizeof out->error,
                 "no BLAS with cblas_sgemm could be loaded (tried %s)", tried);
        return NULL;
    }
    Dl_info info;
    if (dladdr((void *)f, &info) && info.dli_fname) {
        char real[PATH_MAX];
        const char *name = realpath(info.dli_fname, real) ? real : info.dli_fname;
        if (strlen(name) < sizeof out->path)
            memcpy(out->path, name, strlen(name) + 1);
    }
    set_threads_fn set = (set_threads_fn)dlsym(h, "openblas_set_num_threads");
    get_threads_fn get = (get_threads_fn)dlsym(h, "openblas_get_num_threads");
    get_config_fn cfg = (get_config_fn)dlsym(h, "openblas_get_config");
    if (set && threads > 0)
        set(threads);
    out->threads = get ? get() : 0;
    if (cfg && cfg())
        snprintf(out->config, sizeof out->config, "%s", cfg());
    return f;
}

/* ---- the conditions of the timed calls ---- */

enum { MAX_TASKS = 256 };
struct task_times {
    int tid;
    unsigned long long on, wait; /* ns on a CPU, ns runnable and waiting for one */
};

/* Every thread of this process (the BLAS's pool included): its schedstat. The count read. */
static int task_times(struct task_times *t)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && n < MAX_TASKS && (e = readdir(d));) {
        char path[320], buf[96];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(path, "re");
        if (f && fgets(buf, sizeof buf, f) && sscanf(buf, "%llu %llu", &t[n].on, &t[n].wait) == 2)
            t[n++].tid = atoi(e->d_name);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* The conditions between two readings wall_ns apart. A measuring thread is one that was
 * runnable (on a CPU or waiting for one) at least half of the time: the BLAS's idle threads,
 * asleep, are not measuring. Without schedstat, the process's CPU time shared by its threads. */
static void task_cond(const struct task_times *a, int na, const struct task_times *b, int nb,
                      double wall_ns, double cpu_ns, int threads, struct tp_calib_cond *c)
{
    tp_calib_cond_init(c);
    c->threads = threads;
    int seen = 0;
    for (int i = 0; i < nb && wall_ns > 0; i++)
        for (int j = 0; j < na; j++) {
            if (a[j].tid != b[i].tid || b[i].on < a[j].on || b[i].wait < a[j].wait)
                continue;
            double on = (double)(b[i].on - a[j].on), wait = (double)(b[i].wait - a[j].wait);
            if (on + wait >= wall_ns / 2) {
                tp_calib_cond_thread(c, on / wall_ns > 1 ? 1 : on / wall_ns, wait / wall_ns);
                seen++;
            }
        }
    if (!seen && wall_ns > 0) {
        double share = cpu_ns / (wall_ns * (threads > 1 ? threads : 1));
        tp_calib_cond_thread(c, share > 1 ? 1 : share, -1);
    }
}

static double process_cpu_ns(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 ? ts.tv_sec * 1e9 + ts.tv_nsec : 0;
}

/* In the child: load, measure, fill out. */
static int measure_sgemm(const char *lib, int n, int threads, double seconds,
                         struct tp_blas_run *out)
{
    static const char *libs[] = {"libblas.so.3", "libopenblas.so.0", "libcblas.so.3"};
    if (threads > 0)
        set_thread_env(threads);
    sgemm_fn f = lib ? load_sgemm(&lib, 1, threads, out)
                     : load_sgemm(libs, sizeof libs / sizeof libs[0], threads, out);
    if (!f)
        return -1;

    if (n < 256)
        n = 256;
    size_t elems = (size_t)n * (size_t)n, bytes = sizeof(float) * elems;
    float *a = map(bytes), *b = map(bytes), *c = map(bytes);
    if (!a || !b || !c) {
        snprintf(out->error, sizeof out->error, "cannot map 3 x %zu bytes for the matrices", bytes);
        return -2;
    }
    for (size_t i = 0; i < elems; i++) {
        a[i] = (float)(i % 13) / 13;
        b[i] = (float)(i % 7) / 7;
    }
    enum { ROW = 101, NOTRANS = 111 };
    /* A 256^3 probe (after one that starts the library's threads): a slow BLAS (the reference one does
     * 1-3 GFLOP/s) gets a smaller n, so that a measurement never takes minutes. Small matrices
     * run below peak, so the estimate errs towards keeping n. */
    int m = 256;
    f(ROW, NOTRANS, NOTRANS, m, m, m, 1, a, m, b, m, 0, c, m);
    uint64_t p0 = tp_now_ns();
    f(ROW, NOTRANS, NOTRANS, m, m, m, 1, a, m, b, m, 0, c, m);
    double probe = 2.0 * m * (double)m * m / (double)(tp_now_ns() - p0 + 1); /* GFLOP/s */
    while (n > 256 && 2.0 * n * (double)n * n / probe > seconds * 1e9 / 3)
        n = n * 4 / 5 < 256 ? 256 : n * 4 / 5;
    out->n = n;
    f(ROW, NOTRANS, NOTRANS, n, n, n, 1, a, n, b, n, 0, c, n); /* warm up at size */
    double flop = 2.0 * n * (double)n * n, best = 0;
    static struct task_times before[MAX_TASKS], after[MAX_TASKS];
    int nbefore = task_times(before);
    double cpu0 = process_cpu_ns();
    uint64_t start = tp_now_ns();
    do {
        uint64_t t0 = tp_now_ns();
        f(ROW, NOTRANS, NOTRANS, n, n, n, 1, a, n, b, n, 0, c, n);
        double dt = (double)(tp_now_ns() - t0);
        if (dt > 0 && flop / dt > best)
            best = flop / dt; /* FLOP per ns = GFLOP/s */
        out->calls++;
    } while (out->calls < 3 || (double)(tp_now_ns() - start) < seconds * 1e9);
    double wall = (double)(tp_now_ns() - start), cpu = process_cpu_ns() - cpu0;
    int nafter = task_times(after);
    task_cond(before, nbefore, after, nafter, wall, cpu, threads > 0 ? threads : 1, &out->cond);
    out->gflops = best;
    /* No munmap or dlclose: the child exits now, and unloading a BLAS whose worker threads are
     * alive is not safe. */
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

int tp_calib_sgemm(const char *lib, int n, int threads, double seconds, struct tp_blas_run *out)
{
    memset(out, 0, sizeof *out);
    struct {
        int rc;
        struct tp_blas_run run;
    } msg;
    int fds[2];
    if (pipe(fds) < 0) {
        snprintf(out->error, sizeof out->error, "pipe: %s", strerror(errno));
        return -2;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(out->error, sizeof out->error, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -2;
    }
    if (pid == 0) {
        close(fds[0]);
        memset(&msg, 0, sizeof msg);
        msg.rc = measure_sgemm(lib, n, threads, seconds, &msg.run);
        ssize_t w = write(fds[1], &msg, sizeof msg);
        _exit(w == (ssize_t)sizeof msg ? 0 : 1);
    }
    close(fds[1]);
    int ok = read_all(fds[0], &msg, sizeof msg) == 0;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!ok) {
        if (WIFSIGNALED(status))
            snprintf(out->error, sizeof out->error, "the sgemm measurement died of signal %d (%s)",
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            snprintf(out->error, sizeof out->error, "the sgemm measurement exited with status %d",
                     WEXITSTATUS(status));
        return -2;
    }
    *out = msg.run;
    out->error[sizeof out->error - 1] = 0;
    out->path[sizeof out->path - 1] = 0;
    out->config[sizeof out->config - 1] = 0;
    return msg.rc;
}
