/* The state every file of libtprof.so shares (track/runtime.h). Defined here, below the shims
 * and the life cycle that drive it, so that the tables and the report code can use it without
 * calling up into preload/. */
#include "track/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "report/report.h"

_Atomic int tp_state = TP_BOOT;
TP_TLS int tp_guard;
struct tp_config tp_cfg;
uint64_t tp_start_ns;

_Atomic int tp_hurry_signal;
_Atomic uint64_t tp_hurry_deadline_ns;
/* Long enough for the JSON report and the text of an ordinary program, short enough that a
 * process pool's terminate, which waits for each worker, is not held up noticeably. */
uint64_t tp_hurry_grace_ns = 100000000;

int tp_hurry_late(void)
{
    uint64_t d = atomic_load(&tp_hurry_deadline_ns);
    return d && tp_now_ns() >= d;
}

/* One write, through tp_write_fd: a stderr that is a pipe whose reader went away (`./model 2>&1 |
 * head`) fails the write with EPIPE instead of raising SIGPIPE, which would end the program. */
void tp_warn(const char *fmt, ...)
{
    char line[520] = "tprof: ";
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + 7, sizeof line - 8, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 9)
        n = sizeof line - 9;
    n += 7;
    line[n++] = '\n';
    (void)tp_write_fd(2, line, (size_t)n);
    errno = e;
}

/* tprof's own threads running now: the report's thread count leaves them out. */
static _Atomic uint64_t own_threads;

uint64_t tp_own_threads(void)
{
    return atomic_load(&own_threads);
}

void tp_own_threads_fork_child(void)
{
    atomic_store(&own_threads, 0); /* none survived the fork */
}

static void *own_thread(void *arg)
{
    void *(*fn)(void *) = (void *(*)(void *))arg;
    void *rv = fn(NULL);
    atomic_fetch_sub(&own_threads, 1);
    return rv;
}

int tp_start_thread(void *(*fn)(void *))
{
    /* The thread inherits this mask: it must never receive the program's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1024 * 1024); /* static TLS comes out of it too */
    /* its stack and thread descriptor are not the program's allocations */
    struct tp_own g = tp_own_begin();
    atomic_fetch_add(&own_threads, 1); /* before it exists: never counted as the program's */
    int rc = pthread_create(&t, &attr, own_thread, (void *)fn) == 0 ? 0 : -1;
    if (rc)
        atomic_fetch_sub(&own_threads, 1);
    tp_own_end(g);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* Written by the report thread under the report lock (preload/lifecycle.c), read by the report
 * it writes next. */
static uint64_t snapshots, snapshot_ns, snapshot_max_ns;

void tp_snapshot_stats(uint64_t *n, uint64_t *ns, uint64_t *max_ns)
{
    *n = snapshots;
    *ns = snapshot_ns;
    *max_ns = snapshot_max_ns;
}

void tp_snapshot_add(uint64_t ns)
{
    snapshots++;
    snapshot_ns += ns;
    if (ns > snapshot_max_ns)
        snapshot_max_ns = ns;
}

static const struct tp_component *components;
static size_t ncomponents;

void tp_components_set(const struct tp_component *table, size_t n)
{
    components = table;
    ncomponents = n;
}

const struct tp_component *tp_components(size_t *n)
{
    *n = ncomponents;
    return components;
}

void tp_components_notes(struct tp_report *r, int with_ops)
{
    for (size_t i = 0; i < ncomponents; i++)
        if (components[i].notes && !components[i].notes_with_ops == !with_ops)
            components[i].notes(r);
}
