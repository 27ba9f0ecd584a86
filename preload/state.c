/* The library's life cycle (PITFALLS P6-P10): initialisation on first use, fork, and the one
 * function that writes the report, tp_finish().
 *
 * State goes BOOT → INITING → RUNNING → FINISHING → DONE (or DISABLED). Hooks record only while
 * RUNNING; the tables are never freed, so late frees from other libraries' destructors are
 * harmless. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "track/collect.h"
#include "preload/exitpaths.h"
#include "common/fileio.h"
#include "track/heap.h"
#include "track/runtime.h"
#include "track/modules.h"
#include "track/ops.h"
#include "track/optree.h"
#include "common/path.h"
#include "report/render.h"
#include "preload/reporter.h"
#include "report/report.h"
#include "track/sites.h"
#include "track/symtab.h"
#include "track/trace_file.h"
#include "track/trace_heap.h"
#include "track/tracebuf.h"
#include "track/unwind.h"

_Atomic int tp_state = TP_BOOT;
TP_TLS int tp_guard;
struct tp_config tp_cfg;
uint64_t tp_start_ns;

/* Who we are in the profiled process tree; decides report file names (src/path.h). */
static struct {
    long pid;
    int is_root;   /* the process the user started (not a fork child or a spawned program) */
    int image_seq; /* how many exec's this pid went through before this image */
    long root_pid;
    uint64_t run_start_ns; /* CLOCK_MONOTONIC when the root started: the run's age, for names */
} ident;

/* TPROF_TEST_REPORT_DELAY_MS (test-only, not a setting: tests/proc_prompt.sh): the report at the
 * end waits this long before it is written, after saying so on stderr, so that a test can send
 * a signal while it is in progress without depending on how long a report takes. */
static long test_delay_ms;

void tp_warn(const char *fmt, ...)
{
    char line[512];
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    if (write(2, "tprof: ", 7) >= 0 && write(2, line, (size_t)n) >= 0) {
    }
    errno = e;
}

/* The configuration's warnings at start-up, held until all are known, then printed once per
 * run: an image that prints one adds its hash to TPROF_WARNED, which children and exec'd images
 * inherit, so a script that starts ten programs under one bad setting warns once, not ten
 * times. A setting the program changes for a child gives a new line, which is printed. */
static char init_warnings[4096];
static size_t init_warnings_len;

static void warn_line(const char *line)
{
    size_t n = strlen(line);
    if (n < sizeof init_warnings - init_warnings_len) {
        memcpy(init_warnings + init_warnings_len, line, n);
        init_warnings_len += n;
    } else if (write(2, line, n) < 0) {
    }
}

#define WARNED_MAX 32 /* hashes kept in TPROF_WARNED */

static uint64_t line_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Print the held warnings that no earlier image of this run printed. export: record them in
 * TPROF_WARNED for the images to come. */
static void flush_warnings(int export)
{
    char list[WARNED_MAX * 17 + 1], hex[20];
    const char *old = getenv("TPROF_WARNED");
    snprintf(list, sizeof list, "%s", old && strlen(old) < sizeof list ? old : "");
    size_t kept = 0, added = 0;
    for (const char *p = list; *p; p++)
        kept += *p == ',';
    kept += list[0] != 0;
    const char *line = init_warnings, *end = init_warnings + init_warnings_len;
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) + 1 : (size_t)(end - line);
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)line_hash(line, n));
        if (!strstr(list, hex)) {
            if (write(2, line, n) < 0) {
            }
            size_t len = strlen(list);
            if (kept < WARNED_MAX && len + 18 < sizeof list) {
                snprintf(list + len, sizeof list - len, "%s%s", len ? "," : "", hex);
                kept++;
                added++;
            }
        }
        line += n;
    }
    init_warnings_len = 0;
    if (export && added)
        setenv("TPROF_WARNED", list, 1);
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

/* The environment this image was started with. Read from environ, not through getenv(): a program
 * may define its own getenv, and bash's answers from its shell variables, which a forked bash
 * carries over from its parent. identify() runs before main (at the first malloc or in our
 * constructor), when environ is still the one exec gave. */
static const char *initial_env(const char *name)
{
    extern char **environ;
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* This image's identity as the environment carries it to a program it execs or spawns:
 * TPROF_ROOT_PID=<root pid>:<run start ns>, TPROF_IMAGE=<pid>:<images of this pid before it>.
 * 0 when tprof is off in this process (nothing to pass on). */
int tp_ident_env(char *img, size_t ni, char *root, size_t nr)
{
    if (!ident.pid)
        return 0;
    snprintf(img, ni, "TPROF_IMAGE=%ld:%d", ident.pid, ident.image_seq);
    snprintf(root, nr, "TPROF_ROOT_PID=%ld:%llu", ident.root_pid,
             (unsigned long long)ident.run_start_ns);
    return 1;
}

/* Keep environ in step too, for what starts a program without passing through our exec wrappers
 * (posix_spawn, system, a raw execve system call). Through the program's own setenv, since it is
 * the one that owns environ. */
static void publish_ident(void)
{
    char img[64], root[96];
    if (!tp_ident_env(img, sizeof img, root, sizeof root))
        return;
    setenv("TPROF_ROOT_PID", strchr(root, '=') + 1, 1);
    setenv("TPROF_IMAGE", strchr(img, '=') + 1, 1);
}

/* TPROF_ROOT_PID and TPROF_IMAGE travel to children and exec'd images through the environment so
 * that each image can tell whether it is the root process and how many images came before it. A
 * forked child learns it in fork_child() instead: it inherits our memory, not a new environment. */
static void identify(void)
{
    ident.pid = getpid();
    const char *root = initial_env("TPROF_ROOT_PID");
    long rpid = 0;
    unsigned long long start = 0;
    if (root && sscanf(root, "%ld:%llu", &rpid, &start) >= 1 && rpid > 0) {
        ident.root_pid = rpid;
        ident.is_root = rpid == ident.pid;
        /* another boot's clock (an environment copied to another machine) says nothing here */
        ident.run_start_ns = start && start <= tp_start_ns ? start : tp_start_ns;
    } else {
        ident.root_pid = ident.pid;
        ident.is_root = 1;
        ident.run_start_ns = tp_start_ns;
    }
    const char *img = initial_env("TPROF_IMAGE");
    long ipid = -1;
    int iseq = 0;
    if (img && sscanf(img, "%ld:%d", &ipid, &iseq) == 2 && ipid == ident.pid && iseq >= 0)
        ident.image_seq = iseq + 1;
    else
        ident.image_seq = 0;
    publish_ident();
    const char *delay = initial_env("TPROF_TEST_REPORT_DELAY_MS");
    test_delay_ms = delay ? atol(delay) : 0;
}

/* How this image's report files are named (src/path.h). */
static char host_name[256];
static void path_ctx(struct tp_path_ctx *ctx, int sig_seq)
{
    if (gethostname(host_name, sizeof host_name - 1) < 0 || !host_name[0])
        snprintf(host_name, sizeof host_name, "localhost");
    struct tp_path_ctx c = {ident.pid, tp_mpi_rank(env_get), host_name, !ident.is_root,
                            ident.image_seq, sig_seq};
    *ctx = c;
}

/* Before the program's main: an output that cannot be written is said now, not after hours of
 * running, and replaced by its default (src/config.h). */
static void check_outputs(void)
{
    struct tp_path_ctx ctx;
    path_ctx(&ctx, 0);
    tp_config_check_outputs(&tp_cfg, &ctx, warn_line);
}

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* One report at a time: the report thread and an exit path may race. */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork (P7): a child starts with one thread, the one that forked; a lock another thread held
 * at that moment would stay held in the child for ever. So every lock of tprof's is taken
 * before fork and released after it in the parent, and made new in the child. The order, outer
 * first, is the one the code nests them in (a report reads the module list; nothing that holds
 * a later lock waits for an earlier one): fork_lock, report_lock, the symbol table's
 * (symtab.c), the op names' (ops.c), the module list's (modules.c), the stack walker's
 * (unwind.c), the heap table's growth lock (heap.c). hook_plt.c's lock has handlers of its own,
 * registered before these: its prepare handler runs after ours, and nothing it does under that
 * lock takes one of these.
 *
 * From prepare to parent/child the forking thread holds the guard, so that tprof passes
 * through anything it calls in between (other libraries' fork handlers that allocate, run
 * after ours): our hooks take none of these locks there. When the guard is already held at
 * fork (fork from a signal handler that interrupted tprof on this thread), one of these locks
 * may be this thread's own: nothing is taken, the child makes them new all the same. */
static TP_TLS int fork_guard_was, fork_locked;
static void own_files_clear(void);

static void fork_prepare(void)
{
    fork_guard_was = tp_guard;
    fork_locked = !tp_guard;
    tp_guard = 1;
    if (!fork_locked)
        return;
    pthread_mutex_lock(&fork_lock);
    pthread_mutex_lock(&report_lock);
    tp_symtab_lock();
    tp_ops_fork_prepare();
    tp_modules_fork_prepare();
    tp_unwind_fork_prepare();
    tp_heap_fork_prepare();
}

static void fork_parent(void)
{
    if (fork_locked) {
        tp_heap_fork_parent();
        tp_unwind_fork_parent();
        tp_modules_fork_parent();
        tp_ops_fork_parent();
        tp_symtab_unlock();
        pthread_mutex_unlock(&report_lock);
        pthread_mutex_unlock(&fork_lock);
    }
    tp_guard = fork_guard_was;
    /* a terminating signal that came in meanwhile was deferred (exitpaths.c) */
    if (!tp_guard)
        tp_signal_deferred();
}

static void fork_child(void)
{
    pthread_mutex_init(&fork_lock, NULL);
    pthread_mutex_init(&report_lock, NULL);
    tp_symtab_reset_lock();
    tp_modules_fork_child();
    /* A signal deferred in the parent was the parent's. */
    atomic_store(&tp_pending_signal, 0);
    ident.pid = getpid();
    ident.is_root = 0;
    ident.image_seq = 0;
    publish_ident();
    tp_start_ns = tp_now_ns();
    tp_heap_fork_child();
    tp_unwind_fork_child();
    tp_ops_fork_child();
    tp_optree_fork_child();
    tp_trace_fork_child();
    tp_reporter_fork_child();
    own_files_clear();
    tp_guard = fork_guard_was;
}

void tp_init(void)
{
    int expect = TP_BOOT;
    if (!atomic_compare_exchange_strong(&tp_state, &expect, TP_INITING))
        return;
    int e = errno;
    int g = tp_guard;
    tp_guard = 1;
    tp_start_ns = tp_now_ns();
    tp_clock_init();
    tp_config_load(&tp_cfg, env_get, warn_line);
    if (tp_cfg.disable) {
        flush_warnings(0);
        atomic_store(&tp_state, TP_DISABLED);
        tp_guard = g;
        errno = e;
        return;
    }
    identify();
    check_outputs();
    flush_warnings(1);
    tp_heap_init();
    tp_sites_init();
    tp_ops_init();
    tp_optree_init();
    tp_trace_init();
    tp_cyg_init();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    tp_exitpaths_init();
    atomic_store(&tp_state, TP_RUNNING);
    tp_guard = g;
    errno = e;
}

__attribute__((constructor)) static void tp_ctor(void)
{
    tp_init();
    /* Threads are started here rather than in tp_init, which may run inside the first malloc. */
    if (tp_running()) {
        tp_reporter_start();
        tp_trace_start();
        tp_exitpaths_start();
    }
}

__attribute__((destructor)) static void tp_dtor(void)
{
    tp_finish("exit");
}

/* Expand a report path template for this process image. */
static int report_path(const char *var, const char *tmpl, int sig_seq, char *path, size_t n)
{
    struct tp_path_ctx ctx;
    path_ctx(&ctx, sig_seq);
    if (tp_output_path(tmpl, &ctx, path, n) < 0) {
        tp_warn("%s=%s: %s; report not written", var, tmpl, path);
        return -1;
    }
    return 0;
}

/* ---- no report takes the place of another process's ----
 *
 * Each image names its reports apart (src/path.h), but a name can still come round twice in one
 * run: the system reuses a pid (pid_max is often 32768), or two processes that each think they
 * are the root (MPI ranks started by a launcher that is not profiled) share a template without
 * %p or %r. A file at the report's name that another process of this run wrote is then kept, and
 * the report goes beside it under ".<pid>" (".<pid>-<N>" if that is taken too), with a warning.
 * A file from an earlier run is replaced, as it always was, and so is one this image wrote itself
 * (snapshots rewrite theirs; a failed exec and a later exit write the same names again).
 *
 * "Written in this run" compares the file's modification time with the run's start, both on the
 * file system's clock (which on a network file system is not ours): the start is the time stamp
 * of our own temporary file, just written, less the run's age on CLOCK_MONOTONIC (passed from
 * the root in TPROF_ROOT_PID). File time stamps lag by up to a clock tick: the margin keeps a file
 * written just before the run began from counting as this run's. */
#define SAME_RUN_MARGIN_NS 50000000LL

#define OWN_FILES 32
static struct {
    dev_t dev;
    ino_t ino;
} own_files[OWN_FILES];
static int own_next;

/* A forked child wrote none of its parent's files. */
static void own_files_clear(void)
{
    memset(own_files, 0, sizeof own_files);
    own_next = 0;
}

static int own_slot(const struct stat *st)
{
    for (int i = 0; i < OWN_FILES; i++)
        if (own_files[i].ino == st->st_ino && own_files[i].dev == st->st_dev && st->st_ino)
            return i;
    return -1;
}

/* Remember the file just published; `was`, a file of ours it replaced, is forgotten. */
static void own_note(const struct stat *now, const struct stat *was)
{
    int i = was ? own_slot(was) : -1;
    if (i < 0) {
        i = own_next;
        own_next = (own_next + 1) % OWN_FILES;
    }
    own_files[i].dev = now->st_dev;
    own_files[i].ino = now->st_ino;
}

static int64_t mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int written_this_run(const struct stat *old, const struct stat *tmp)
{
    int64_t age = (int64_t)(tp_now_ns() - ident.run_start_ns);
    return mtime_ns(old) + age > mtime_ns(tmp) + SAME_RUN_MARGIN_NS;
}

/* Name number k of the report at path when path is taken: ".<pid>" or ".<pid>-<k>" before the
 * extension of the file name. */
static void other_name(const char *path, int k, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t at = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    char tag[48];
    if (k == 0)
        snprintf(tag, sizeof tag, ".%ld", ident.pid);
    else
        snprintf(tag, sizeof tag, ".%ld-%d", ident.pid, k);
    snprintf(out, n, "%.*s%s%s", (int)at, path, tag, path + at);
}

/* Put the finished temporary file tmp in place at path (changed when the report goes beside
 * another process's; n bytes). 0, or -1 with errno set. A free name is taken with link(), which
 * fails rather than replace a file that another process put there in the meantime. The publisher
 * of the report writer (src/fileio.h); arg is the variable's name, for the warning. */
static int publish(void *arg, const char *tmp, char *path, size_t n)
{
    const char *var = arg;
    struct stat t, old;
    if (stat(tmp, &t) < 0)
        return rename(tmp, path);
    char cand[4200];
    snprintf(cand, sizeof cand, "%s", path);
    for (int k = 0, tries = 0; tries < 64; tries++) {
        int exists = lstat(cand, &old) == 0;
        int was_own = exists && own_slot(&old) >= 0;
        if (strlen(cand) >= n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (!exists) {
            if (link(tmp, cand) == 0) {
                unlink(tmp);
            } else if (errno == EEXIST) {
                continue; /* someone else just took it: look again */
            } else if (rename(tmp, cand) < 0) { /* no hard links on this file system */
                return -1;
            }
        } else if (was_own || !written_this_run(&old, &t)) {
            if (rename(tmp, cand) < 0)
                return -1;
        } else {
            other_name(path, k++, cand, sizeof cand);
            continue;
        }
        if (k > 0 && !was_own)
            tp_warn("%s: %s was written by another process while this one ran; this report "
                    "goes to %s", var, path, cand);
        own_note(&t, exists ? &old : NULL);
        memcpy(path, cand, strlen(cand) + 1);
        return 0;
    }
    errno = EEXIST;
    return -1;
}

/* A terminating signal that ends the process in the middle of a report removes the temporary
 * file (src/fileio.h), and the previous report stays whole. */
void tp_report_abandon(void)
{
    tp_write_abandon();
}

static void test_delay(void)
{
    if (test_delay_ms <= 0)
        return;
    tp_warn("TPROF_TEST_REPORT_DELAY_MS: the report waits %ld ms", test_delay_ms);
    struct timespec ts = {test_delay_ms / 1000, (test_delay_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Write a report file where the user pointed (src/fileio.h): a regular file atomically, so that
 * a reader, or a program killed while a snapshot is written, never sees half a report, and never
 * over another process's report (publish); a device, a FIFO or a descriptor in place. */
static char *write_out(const char *var, const char *tmpl, int sig_seq, const struct tp_buf *b)
{
    char path[4096];
    const char *why;
    if (report_path(var, tmpl, sig_seq, path, sizeof path) < 0)
        return NULL;
    struct tp_publish pub = {publish, (void *)var};
    char final[4096];
    if (tp_write_file_as(path, b->p, b->len, &pub, final, sizeof final, &why) < 0) {
        tp_warn("%s: cannot write %s: %s; report not written", var, path, why);
        return NULL;
    }
    return strdup(final);
}

/* TPROF_FOLDED names the op-time file; the heap-at-peak file goes beside it: "x.folded" gives
 * "x.heap.folded", any other name gets ".heap" appended. */
static void heap_folded_template(const char *tmpl, char *out, size_t n)
{
    size_t len = strlen(tmpl);
    if (len > 7 && !strcmp(tmpl + len - 7, ".folded"))
        snprintf(out, n, "%.*s.heap.folded", (int)(len - 7), tmpl);
    else
        snprintf(out, n, "%s.heap", tmpl);
}

/* The trace and the folded stacks, before the report so that it can say what they hold. A
 * periodic snapshot skips the trace: rewriting up to TPROF_TRACE_MAX bytes every period would
 * cost the program more than the snapshot is worth; exit and TPROF_SIGNAL write it. */
static void write_extras(struct tp_report *r, const char *why, int sig_seq)
{
    if (tp_cfg.trace && tp_trace_on && strcmp(why, "snapshot") != 0) {
        struct tp_buf b;
        tp_buf_init(&b);
        tp_trace_render(r, &b);
        if (tp_buf_ok(&b))
            r->outputs.trace = write_out("TPROF_TRACE", tp_cfg.trace, sig_seq, &b);
        else
            tp_warn("TPROF_TRACE: out of memory while rendering the trace; not written");
        tp_buf_free(&b);
    }
    if (tp_cfg.folded) {
        char heap[4200];
        struct tp_buf b;
        tp_buf_init(&b);
        tp_render_folded(r, TP_FOLDED_TIME, &b);
        if (tp_buf_ok(&b))
            r->outputs.folded_time = write_out("TPROF_FOLDED", tp_cfg.folded, sig_seq, &b);
        /* A device, FIFO or descriptor has no name beside it for the heap stacks ("/dev/null.heap"
         * would be a new file in /dev), and bytes mixed into a stream of times would make one
         * wrong flame graph: there only the op-time stacks are written. */
        if (!r->outputs.folded_time || !tp_file_is_stream(r->outputs.folded_time)) {
            b.len = 0;
            tp_render_folded(r, TP_FOLDED_HEAP, &b);
            heap_folded_template(tp_cfg.folded, heap, sizeof heap);
            if (tp_buf_ok(&b))
                r->outputs.folded_heap = write_out("TPROF_FOLDED", heap, sig_seq, &b);
        }
        tp_buf_free(&b);
    }
}

/* Build the report and write every output. Called with the guard held and recording stopped. */
static void write_reports(const char *why, int sig_seq)
{
    struct tp_report r;
    tp_report_init(&r);
    tp_collect(&r, why);
    tp_analyze(&r);
    write_extras(&r, why, sig_seq);

    if (strcmp(tp_cfg.output, "none") != 0) {
        struct tp_buf b;
        tp_buf_init(&b);
        struct tp_text_opts o = {tp_cfg.top, 100};
        tp_render_text(&r, &o, &b);
        if (!strcmp(tp_cfg.output, "stderr")) {
            /* On stderr only the program the user started speaks: a shell wrapper's image before
             * it execs the real program, or the dozens of helpers a script spawns, would bury
             * its report. Their reports still go to TPROF_JSON / a TPROF_OUTPUT path. */
            if (ident.is_root && strcmp(why, "exec") != 0 && strcmp(why, "snapshot") != 0 &&
                tp_write_fd(2, b.p, b.len) < 0) {
            }
        } else {
            free(write_out("TPROF_OUTPUT", tp_cfg.output, sig_seq, &b));
        }
        tp_buf_free(&b);
    }
    if (tp_cfg.json) {
        struct tp_buf b;
        tp_buf_init(&b);
        tp_render_json(&r, &b);
        free(write_out("TPROF_JSON", tp_cfg.json, sig_seq, &b));
        tp_buf_free(&b);
    }
    tp_report_free(&r);
}

int tp_finish(const char *why)
{
    /* A child that shares our memory (vfork, or a clone without fork's handlers) is not us: its
     * report would take our name, and our state would end for the parent too. */
    if (getpid() != ident.pid)
        return 0;
    int expect = TP_RUNNING;
    if (!atomic_compare_exchange_strong(&tp_state, &expect, TP_FINISHING))
        return 0;
    int e = errno;
    int g = tp_guard;
    tp_guard = 1;
    pthread_mutex_lock(&report_lock);
    test_delay();
    write_reports(why, 0);
    pthread_mutex_unlock(&report_lock);
    atomic_store(&tp_state, TP_DONE);
    tp_guard = g;
    errno = e;
    /* A terminating signal that arrived while we were writing was deferred: act on it now. */
    if (!g)
        tp_signal_deferred();
    return 1;
}

/* What the snapshots cost so far: the report says it (README: "what a snapshot costs"). */
static uint64_t snapshots, snapshot_ns, snapshot_max_ns;

void tp_snapshot_stats(uint64_t *n, uint64_t *ns, uint64_t *max_ns)
{
    *n = snapshots;
    *ns = snapshot_ns;
    *max_ns = snapshot_max_ns;
}

int tp_report_now(const char *why, int sig_seq)
{
    if (!tp_running())
        return 0;
    int g = tp_guard;
    tp_guard = 1;
    pthread_mutex_lock(&report_lock);
    int ok = tp_running();
    if (ok) {
        int snap = !strcmp(why, "snapshot");
        uint64_t t0 = tp_now_ns();
        write_reports(why, sig_seq);
        if (snap) {
            uint64_t d = tp_now_ns() - t0;
            snapshots++;
            snapshot_ns += d;
            if (d > snapshot_max_ns)
                snapshot_max_ns = d;
        }
    }
    pthread_mutex_unlock(&report_lock);
    tp_guard = g;
    return ok;
}

void tp_resume_after_failed_exec(void)
{
    int expect = TP_DONE;
    atomic_compare_exchange_strong(&tp_state, &expect, TP_RUNNING);
}

long tp_ident_pid(void)
{
    return ident.pid;
}
