/* The state every file of libtprof.so shares (track/runtime.h). Defined here, below the shims
 * and the life cycle that drive it, so that the tables and the report code can use it without
 * calling up into preload/. */
#include "track/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/out/out.h"
#include "report/report.h"

_Atomic int tp_state = TP_BOOT;
TP_TLS int tp_guard;
struct tp_config tp_cfg;
uint64_t tp_start_ns;

_Atomic int tp_hurry_signal;
_Atomic uint64_t tp_hurry_deadline_ns;
/* Long enough for the JSON report and the text of an ordinary program, short enough that a
 * process pool's terminate, which waits for each worker, is not held up noticeably. */
const uint64_t tp_hurry_grace_ns = 100000000;

int tp_hurry_late(void)
{
    uint64_t d = atomic_load(&tp_hurry_deadline_ns);
    return d && tp_now_ns() >= d;
}

/* What a warning names (a path, a setting's value, a name from the program) is shown escaped,
 * once, here, for the whole line (common/out/escape.c): callers pass values as they are. One write,
 * so that two threads' warnings do not interleave. */
void tp_warn(const char *fmt, ...)
{
    char raw[512], line[1600] = "tprof: ";
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = 7 + tp_escape(line + 7, sizeof line - 8, raw, strnlen(raw, sizeof raw));
    line[len++] = '\n';
    /* through the writer that keeps SIGPIPE and SIGXFSZ from the program (a closed pipe,
     * ulimit -f) */
    (void)tp_write_fd(2, line, len);
    errno = e;
}

/* tprof's own threads running now: the report's thread count leaves them out. */
static _Atomic uint64_t own_threads;

/* Their thread ids, so that the per-thread CPU figures (track/steps/cpu.c) leave them out; 0 is a
 * free slot. More than OWN_TIDS at once is not expected: the rest would be listed as the
 * program's. */
#define OWN_TIDS 8
static _Atomic int64_t own_tids[OWN_TIDS];

uint64_t tp_own_threads(void)
{
    return atomic_load(&own_threads);
}

void tp_own_threads_fork_child(void)
{
    for (int i = 0; i < OWN_TIDS; i++)
        atomic_store(&own_tids[i], 0);
    atomic_store(&own_threads, 0); /* none survived the fork */
}

int tp_own_tid(int64_t tid)
{
    for (int i = 0; i < OWN_TIDS; i++)
        if (tid && atomic_load(&own_tids[i]) == tid)
            return 1;
    return 0;
}

TP_TLS int tp_own_thread;

static void *own_thread(void *arg)
{
    void *(*fn)(void *) = (void *(*)(void *))arg;
    tp_own_thread = 1;
    int64_t tid = (int64_t)syscall(SYS_gettid), none = 0;
    int slot = -1;
    for (int i = 0; i < OWN_TIDS && slot < 0; i++, none = 0)
        if (atomic_compare_exchange_strong(&own_tids[i], &none, tid))
            slot = i;
    void *rv = fn(NULL);
    if (slot >= 0)
        atomic_store(&own_tids[slot], 0);
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
