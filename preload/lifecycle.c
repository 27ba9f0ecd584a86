/* The library's life cycle: initialisation on first use, fork, and the one function that
 * writes the report at the end, tp_finish().
 *
 * State goes BOOT -> INITING -> RUNNING -> FINISHING -> DONE (or DISABLED). Hooks record only
 * while RUNNING; the tables are never freed, so late frees from other libraries' destructors are
 * harmless. The parts of the library are reached through their table (track/runtime.h), set by
 * preload/main.c: this file names none of them. */
#include "preload/lifecycle.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/config.h"
#include "common/out/out.h"
#include "preload/handoff.h"
#include "report/report.h"
#include "track/steps/steps.h"
#include "track/ops/ops.h"
#include "track/out/out.h"
#include "track/runtime.h"

/* Who we are in the profiled process tree; decides report file names (track/out/output.c). */
static struct tp_ident ident;

/* Called, when a library loaded before libtprof.so defines it, as the report at the end begins:
 * recording has stopped and a terminating signal now hurries the report or ends the process
 * (track/runtime.h). The test suite's libtpdelay.so holds the report there, so that its signals
 * land while a report is in progress however fast the report is. */
extern void tprof_report_begins(void) __attribute__((weak, visibility("default")));

/* What tp_finish and fork call when they let go of the guard (tp_lifecycle_on_release). */
static void (*on_release)(void);

void tp_lifecycle_on_release(void (*fn)(void))
{
    on_release = fn;
}

static void release(void)
{
    if (on_release)
        on_release();
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
    } else {
        (void)tp_write_fd(2, line, n);
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
            (void)tp_write_fd(2, line, n);
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
 * TPROF_ROOT_PID=<root pid>:<run start ns>[:<the run's directory>],
 * TPROF_IMAGE=<pid>:<images of this pid before it>. 0 when tprof is off in this process (nothing
 * to pass on). */
int tp_ident_env(char *img, size_t ni, char *root, size_t nr)
{
    if (!ident.pid)
        return 0;
    snprintf(img, ni, "TPROF_IMAGE=%ld:%d", ident.pid, ident.image_seq);
    snprintf(root, nr, "TPROF_ROOT_PID=%ld:%llu%s%s", ident.root_pid,
             (unsigned long long)ident.run_start_ns, ident.run_dir[0] ? ":" : "", ident.run_dir);
    return 1;
}

/* Keep environ in step too, for what starts a program without passing through our exec wrappers
 * (posix_spawn, system, a raw execve system call). Through the program's own setenv, since it is
 * the one that owns environ. */
static void publish_ident(void)
{
    char img[64], root[TP_ROOT_ENV_MAX];
    if (!tp_ident_env(img, sizeof img, root, sizeof root))
        return;
    setenv("TPROF_ROOT_PID", strchr(root, '=') + 1, 1);
    setenv("TPROF_IMAGE", strchr(img, '=') + 1, 1);
}

/* The run's directory (common/out/rundir.c) is made by the root as it starts its first child (a
 * fork, a spawn, an exec from a vfork child; an exec of its own too, whose next image goes on as
 * the root): a run of one process makes none, and a root that ends without its last report
 * (killed, or exec'ing a program without tprof) leaves none behind unless it had children. Its
 * name reaches them in TPROF_ROOT_PID, which the exec and spawn shims write from this image's
 * identity (execenv.c). Called from a vfork child too, which shares our memory: mkdtemp
 * allocates nothing, and the name it writes here is the parent's when it resumes. */
static _Atomic int run_dir_wanted;

void tp_run_dir_ensure(void)
{
    if (!ident.is_root || ident.run_dir[0] || !atomic_exchange(&run_dir_wanted, 0))
        return;
    extern char **environ;
    const char *tmp = NULL;
    for (char **e = environ; e && *e && !tmp; e++)
        if (!strncmp(*e, "TMPDIR=", 7))
            tmp = *e + 7;
    if (tp_rundir_make(tmp, ident.run_dir, sizeof ident.run_dir) == 0)
        tp_output_set_ident(&ident);
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
    int used = 0;
    ident.run_dir[0] = 0;
    if (root && sscanf(root, "%ld:%llu%n", &rpid, &start, &used) >= 1 && rpid > 0) {
        ident.root_pid = rpid;
        ident.is_root = rpid == ident.pid;
        /* another boot's clock (an environment copied to another machine) says nothing here */
        ident.run_start_ns = start && start <= tp_start_ns ? start : tp_start_ns;
        const char *dir = used ? root + used : "";
        if (dir[0] == ':' && dir[1] == '/' && strlen(dir + 1) <= TP_RUNDIR_MAX)
            strcpy(ident.run_dir, dir + 1);
    } else {
        ident.root_pid = ident.pid;
        ident.is_root = 1;
        ident.run_start_ns = tp_start_ns;
    }
    /* The run's processes leave their JSON records for the root's reporter
     * (common/out/rundir.c); a stream is one target for all, written by each in turn. */
    if (ident.is_root && !ident.run_dir[0])
        atomic_store(&run_dir_wanted, tp_cfg.json && !tp_file_is_stream(tp_cfg.json));
    const char *img = initial_env("TPROF_IMAGE");
    long ipid = -1;
    int iseq = 0;
    if (img && sscanf(img, "%ld:%d", &ipid, &iseq) == 2 && ipid == ident.pid && iseq >= 0)
        ident.image_seq = iseq + 1;
    else
        ident.image_seq = 0;
    publish_ident();
    tp_output_set_ident(&ident);
    tp_output_set_handoff(tp_handoff);
}

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* One report at a time: the report thread and an exit path may race. */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork: a child starts with one thread, the one that forked; a lock another thread held at
 * that moment would stay held in the child for ever. So every lock of tprof's is taken before
 * fork and released after it in the parent, and made new in the child. The order, outer first,
 * is the one the code nests them in (a report reads the module list; nothing that holds a later
 * lock waits for an earlier one): fork_lock, report_lock, then the parts' in their table's order
 * (preload/main.c: the symbol table's, the op names', the module list's, the stack walker's, the
 * heap table's growth lock, the PLT patcher's), released in the reverse order.
 *
 * From prepare to parent/child the forking thread holds the guard, so that tprof passes
 * through anything it calls in between (other libraries' fork handlers that allocate, run
 * after ours): our hooks take none of these locks there. When the guard is already held at
 * fork (fork from a signal handler that interrupted tprof on this thread), one of these locks
 * may be this thread's own: nothing is taken, the child makes them new all the same.
 *
 * glibc runs these handlers around fork() only; a clone system call that copies the process
 * like fork gets them from our syscall() (preload/shim_clone.c) when it goes through it. */
static TP_TLS int fork_guard_was, fork_locked;
static int fork_handlers; /* registered: tprof runs */

/* Which children share our memory. A child of vfork, or of a clone with CLONE_VM, runs in our
 * memory without being us: it must not write a report (it would take our name, and end our state
 * for us). A child that got a copy of our memory from a clone that no fork handler saw (a raw
 * system call in the program's own code) is a process of its own and should. Both have a pid
 * that is not ours; what tells them apart is this page, which the kernel gives a copied child
 * zeroed (MADV_WIPEONFORK, Linux 4.14) and a sharing child as it is: it holds 1 in every process
 * of ours. Without it (an older kernel) every such child is taken to share our memory. Read only
 * on the ways out, never in the hooks. */
static volatile int *own_memory;

static void own_memory_init(void)
{
#ifdef MADV_WIPEONFORK
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    if (madvise(p, (size_t)page, MADV_WIPEONFORK) < 0) {
        munmap(p, (size_t)page);
        return;
    }
    own_memory = p;
    *own_memory = 1;
#endif
}

void tp_fork_prepare(void)
{
    fork_guard_was = tp_guard;
    fork_locked = !tp_guard;
    tp_guard = 1;
    if (!fork_locked)
        return;
    tp_run_dir_ensure();
    pthread_mutex_lock(&fork_lock);
    pthread_mutex_lock(&report_lock);
    size_t n;
    const struct tp_component *c = tp_components(&n);
    for (size_t i = 0; i < n; i++)
        if (c[i].fork_prepare)
            c[i].fork_prepare();
}

void tp_fork_parent(void)
{
    if (fork_locked) {
        size_t n;
        const struct tp_component *c = tp_components(&n);
        for (size_t i = n; i-- > 0;)
            if (c[i].fork_parent)
                c[i].fork_parent();
        pthread_mutex_unlock(&report_lock);
        pthread_mutex_unlock(&fork_lock);
    }
    tp_guard = fork_guard_was;
    /* a terminating signal that came in meanwhile was deferred */
    if (!tp_guard)
        release();
}

/* The child is a new image of the run: its own pid, not the root, its counts from now. */
void tp_fork_child(void)
{
    pthread_mutex_init(&fork_lock, NULL);
    pthread_mutex_init(&report_lock, NULL);
    if (own_memory)
        *own_memory = 1; /* the kernel zeroed the child's copy */
    ident.pid = getpid();
    ident.is_root = 0;
    ident.image_seq = 0;
    publish_ident();
    tp_output_set_ident(&ident);
    tp_start_ns = tp_now_ns();
    size_t n;
    const struct tp_component *c = tp_components(&n);
    for (size_t i = 0; i < n; i++)
        if (c[i].fork_child)
            c[i].fork_child();
    tp_guard = fork_guard_was;
    /* a terminating signal sent to the child as it started was deferred */
    if (!tp_guard)
        release();
}

int tp_fork_handlers(void)
{
    return fork_handlers;
}

/* A copied child that no fork handler saw becomes a process of its own when it is found, on its
 * way out: its pid, names of a child, no file of its parent's as its own, and tprof's own locks
 * made new (it has one thread; another thread of the parent may have held one at the clone). Its
 * counts go on from its parent's, which the report says (tp_lifecycle_notes). The locks of the
 * parts are not made new: their handlers would start the counts again. Like glibc's own locks,
 * which such a clone leaves as they were, one held by another thread at that instant stays held. */
static int copied_unseen;

static void adopt_copy(void)
{
    pthread_mutex_init(&fork_lock, NULL);
    pthread_mutex_init(&report_lock, NULL);
    *own_memory = 1;
    ident.pid = getpid();
    ident.is_root = 0;
    ident.image_seq = 0;
    tp_output_set_ident(&ident);
    tp_output_fork_child();
    copied_unseen = 1;
}

void tp_lifecycle_notes(struct tp_report *r)
{
    if (copied_unseen)
        tp_report_note(r, "this process was copied from its parent by a clone system call that "
                          "tprof did not see: its figures include its parent's from before the "
                          "clone");
}

/* The configuration is read, and with it the warnings said; a disabled tprof stops there. */
static int configure(void)
{
    tp_start_ns = tp_now_ns();
    tp_cpu_start();
    tp_clock_init();
    tp_config_load(&tp_cfg, tp_env_get, warn_line);
    if (tp_cfg.disable) {
        flush_warnings(0);
        return 0;
    }
    identify();
    tp_output_check(warn_line);
    flush_warnings(1);
    return 1;
}

void tp_init(void)
{
    int expect = TP_BOOT;
    if (!atomic_compare_exchange_strong(&tp_state, &expect, TP_INITING))
        return;
    struct tp_own g = tp_own_begin();
    if (!configure()) {
        atomic_store(&tp_state, TP_DISABLED);
        tp_own_end(g);
        return;
    }
    size_t n;
    const struct tp_component *c = tp_components(&n);
    for (size_t i = 0; i < n; i++)
        if (c[i].init)
            c[i].init();
    own_memory_init();
    pthread_atfork(tp_fork_prepare, tp_fork_parent, tp_fork_child);
    fork_handlers = 1;
    /* RUNNING tells the malloc shims that the real functions are known (hook_malloc.c) */
    atomic_store(&tp_state, tp_raw_ready() ? TP_RUNNING : TP_DISABLED);
    tp_own_end(g);
}

/* What started the report in progress at the end: a terminating signal (no other signal then
 * hurries it: the first asked for the end already), exit() (whose flush of stdio comes after it),
 * or another way out. */
enum { FINISH_OTHER, FINISH_SIGNAL, FINISH_EXIT };
static _Atomic int finishing_kind;

int tp_finish(const char *why)
{
    /* A child that shares our memory (vfork, or a clone with CLONE_VM) is not us: its
     * report would take our name, and our state would end for the parent too. */
    if (tp_in_vfork_child())
        return 0;
    int expect = TP_RUNNING;
    if (!atomic_compare_exchange_strong(&tp_state, &expect, TP_FINISHING))
        return 0;
    atomic_store(&finishing_kind, !strncmp(why, "signal", 6) ? FINISH_SIGNAL
                                  : !strcmp(why, "exit")     ? FINISH_EXIT
                                                             : FINISH_OTHER);
    struct tp_own g = tp_own_begin();
    tp_sample_stop(); /* before exec above all: ITIMER_PROF would outlive this image */
    pthread_mutex_lock(&report_lock);
    if (tprof_report_begins)
        tprof_report_begins();
    tp_write_reports(why, 0);
    tp_handoff_end(); /* a reporter kept for snapshots ends with this image, waited for */
    tp_demote_keep_best();
    pthread_mutex_unlock(&report_lock);
    atomic_store(&tp_state, TP_DONE);
    tp_own_end(g);
    /* A terminating signal that arrived while we were writing was deferred, or hurried the
     * report: act on it now (a deferred one only once the guard is down, which it checks). */
    release();
    return 1;
}

int tp_finishing_on_signal(void)
{
    return atomic_load(&finishing_kind) == FINISH_SIGNAL;
}

int tp_finishing_at_exit(void)
{
    return atomic_load(&finishing_kind) == FINISH_EXIT;
}

int tp_report_now(const char *why, int sig_seq)
{
    if (!tp_running())
        return 0;
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&report_lock);
    int ok = tp_running();
    if (ok) {
        int snap = !strcmp(why, "snapshot");
        uint64_t t0 = tp_now_ns();
        tp_write_reports(why, sig_seq);
        if (snap)
            tp_snapshot_add(tp_now_ns() - t0);
    }
    pthread_mutex_unlock(&report_lock);
    tp_own_end(g);
    return ok;
}

void tp_resume_after_failed_exec(void)
{
    int expect = TP_DONE;
    atomic_compare_exchange_strong(&tp_state, &expect, TP_RUNNING);
}

int tp_in_vfork_child(void)
{
    if (getpid() == ident.pid)
        return 0;
    if (!own_memory || *own_memory)
        return 1;
    adopt_copy();
    return 0;
}
