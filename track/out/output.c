/* Report files (track/out/out.h): their names for this process image, putting them in place
 * without taking another process's, and writing every output of one report, which the tprof
 * program renders from this process's record (preload/handoff.c); the report of an image as it
 * execs another (track/out/output_exec.c decides whether there is one).
 *
 * Long because one report's files are named, handed over, written and kept per image in one
 * place: the rules that decide a file's name (the image, the signal's number, a snapshot,
 * another process's file) are the ones that decide whether and where it is written. */
#include "track/out/out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/out/out.h"
#include "report/render/render.h" /* the JSON writer: the record is written as JSON */
#include "report/report.h"
#include "track/out/output_exec.h"
#include "track/runtime.h"
#include "track/out/trace_file.h"

static struct tp_ident ident;

/* While the report of an image that execs another is written: that image's name, put in every
 * file name (".<image>"), so that the plain names stay free for the last image of the process. */
static char exec_image[64];

void tp_output_set_ident(const struct tp_ident *id)
{
    ident = *id;
}

/* How this image's report files are named (common/out/path.c). */
static char host_name[256];
static void path_ctx(struct tp_path_ctx *ctx, int sig_seq)
{
    if (gethostname(host_name, sizeof host_name - 1) < 0 || !host_name[0])
        snprintf(host_name, sizeof host_name, "localhost");
    struct tp_path_ctx c = {ident.pid,      tp_mpi_rank(tp_env_get), host_name,
                            !ident.is_root, ident.image_seq,         sig_seq};
    c.image = exec_image[0] ? exec_image : NULL;
    *ctx = c;
}

void tp_output_check(void (*warn)(const char *line))
{
    struct tp_path_ctx ctx;
    path_ctx(&ctx, 0);
    tp_config_check_outputs(&tp_cfg, &ctx, warn);
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
 * Each image names its reports apart (common/out/path.c), but a name can still come round twice in one
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
void tp_output_fork_child(void)
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
    const char *base = tp_base_name(path, NULL);
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
 * of the report writer (common/out/fileio.c); arg is the variable's name, for the warning. */
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
                continue;                       /* someone else just took it: look again */
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
                    "goes to %s",
                    var, path, cand);
        own_note(&t, exists ? &old : NULL);
        memcpy(path, cand, strlen(cand) + 1);
        return 0;
    }
    errno = EEXIST;
    return -1;
}

/* A terminating signal that ends the process in the middle of a report removes the temporary
 * file (common/out/fileio.c), and the previous report stays whole. */
void tp_report_abandon(void)
{
    tp_write_abandon();
}

/* The files of the report written as this image execs: if the exec fails, the image goes on
 * and owns the plain names again, and its report at the end replaces these. */
#define EXEC_FILES 8 /* text, JSON, HTML, trace, two folded, two pprof */
static char exec_files[EXEC_FILES][4096];
static int exec_nfiles;

/* Write a report file where the user pointed (common/out/fileio.c): a regular file atomically, so that
 * a reader, or a program killed while a snapshot is written, never sees half a report, and never
 * over another process's report (publish); a device, a FIFO or a descriptor in place. */
/* ---- failures: said once, and snapshots back off ----
 *
 * A periodic snapshot that cannot be written (a full disk, a file size limit, a directory
 * removed) fails again at every period: the same line dozens of times would bury the program's
 * own output, and each try on a full disk competes with the program for the last blocks. So a
 * failure is said once per output and cause, and after one the output's snapshots skip 1, 2, 4,
 * ... up to 64 periods before trying again; the report at exit always tries. */
#define FAIL_SLOTS 8
static struct {
    const char *var; /* the setting's name, a string constant */
    const char *why; /* the cause last said */
    unsigned skip, backoff;
} fails[FAIL_SLOTS];

static int fail_slot(const char *var)
{
    for (int i = 0; i < FAIL_SLOTS; i++)
        if (!fails[i].var || !strcmp(fails[i].var, var)) {
            fails[i].var = var;
            return i;
        }
    return FAIL_SLOTS - 1;
}

/* Whether a snapshot leaves this output out this time. */
static int backing_off(const char *var, int snapshot)
{
    int i = fail_slot(var);
    if (!snapshot || !fails[i].skip)
        return 0;
    fails[i].skip--;
    return 1;
}

static void note_failure(const char *var, const char *path, const char *why)
{
    int i = fail_slot(var);
    fails[i].backoff = fails[i].backoff ? (fails[i].backoff < 64 ? fails[i].backoff * 2 : 64) : 1;
    fails[i].skip = fails[i].backoff;
    if (fails[i].why && !strcmp(fails[i].why, why))
        return;
    fails[i].why = why;
    tp_warn("%s: cannot write %s: %s; report not written", var, path, why);
}

/* The run's start on the file system's clock, for the temporary files of its dead processes;
 * 0 (no clean-up) outside the run's root process. The root's reports clean up for the run: a
 * scan by every process would read the whole directory once per report, a million entries for
 * a script whose thousand processes each write their report there. */
static int64_t run_start_realtime_ns(void)
{
    if (!ident.is_root)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    /* file time stamps lag the clock by up to a tick: a second's margin */
    return now - (int64_t)(tp_now_ns() - ident.run_start_ns) - 1000000000LL;
}

static char *write_out(const char *var, const char *tmpl, int sig_seq, const struct tp_buf *b,
                       int snapshot)
{
    char path[4096];
    const char *why;
    if (backing_off(var, snapshot) || report_path(var, tmpl, sig_seq, path, sizeof path) < 0)
        return NULL;
    struct tp_publish pub = {publish, (void *)var, run_start_realtime_ns()};
    char final[4096];
    if (tp_write_file_as(path, b->p, b->len, &pub, final, sizeof final, &why) < 0) {
        note_failure(var, path, why);
        return NULL;
    }
    fails[fail_slot(var)].backoff = 0;
    if (exec_image[0] && !tp_file_is_stream(final) && exec_nfiles < EXEC_FILES)
        snprintf(exec_files[exec_nfiles++], sizeof exec_files[0], "%s", final);
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

/* The trace is made here, before the record, which says where it goes (the reporter renders
 * the folded stacks, whose paths are planned here too), and written after the report: the
 * smallest and most wanted output first, so that a report that a signal hurries
 * (track/runtime.h) or that is killed outright has its JSON on disk before the up to
 * TPROF_TRACE_MAX bytes of the trace. The report names the files where they are planned to go
 * (a warning says so when one then goes elsewhere or cannot be written). */
struct extras {
    struct tp_buf trace;
    int trace_made;
    char heap_tmpl[4200]; /* "": no heap stacks */
};

/* Where tmpl would put this image's file: a copy for the report, NULL when it cannot be named
 * (write_out then says why). */
static char *planned_path(const char *tmpl, int sig_seq)
{
    struct tp_path_ctx ctx;
    char path[4096];
    path_ctx(&ctx, sig_seq);
    return tp_output_path(tmpl, &ctx, path, sizeof path) < 0 ? NULL : strdup(path);
}

/* A periodic snapshot skips the trace: rewriting up to TPROF_TRACE_MAX bytes every period would
 * cost the program more than the snapshot is worth; exit and TPROF_SIGNAL write it. */
static void plan_extras(struct tp_report *r, const char *why, int sig_seq, struct extras *x)
{
    tp_buf_init(&x->trace);
    x->heap_tmpl[0] = 0;
    x->trace_made = tp_cfg.trace && tp_trace_on && strcmp(why, "snapshot") != 0;
    if (x->trace_made) {
        tp_trace_render(r, &x->trace);
        if (tp_buf_ok(&x->trace))
            r->outputs.trace = planned_path(tp_cfg.trace, sig_seq);
    }
    /* the JSON and HTML reports are written once rendered: the text names where they go */
    if (tp_cfg.json)
        r->outputs.json = planned_path(tp_cfg.json, sig_seq);
    if (tp_cfg.html)
        r->outputs.html = planned_path(tp_cfg.html, sig_seq);
    if (tp_cfg.pprof)
        r->outputs.pprof = planned_path(tp_cfg.pprof, sig_seq);
    if (tp_cfg.pprof_time)
        r->outputs.pprof_time = planned_path(tp_cfg.pprof_time, sig_seq);
    if (tp_cfg.folded) {
        r->outputs.folded_time = planned_path(tp_cfg.folded, sig_seq);
        /* A device, FIFO or descriptor has no name beside it for the heap stacks ("/dev/null.heap"
         * would be a new file in /dev), and bytes mixed into a stream of times would make one
         * wrong flame graph: there only the op-time stacks are written. */
        if (!r->outputs.folded_time || !tp_file_is_stream(r->outputs.folded_time)) {
            heap_folded_template(tp_cfg.folded, x->heap_tmpl, sizeof x->heap_tmpl);
            r->outputs.folded_heap = planned_path(x->heap_tmpl, sig_seq);
        }
    }
}

/* The outputs the reporter rendered, by kind, pointing into its answer. */
struct rendered {
    struct tp_buf json, text, html, folded, folded_heap, pprof, pprof_time;
};

/* Split the reporter's answer ("KIND LENGTH\n" and LENGTH bytes, again and again) into r. 0, or
 * -1 when it is not that. The buffers borrow the answer's bytes: never freed on their own. */
static int split_answer(const struct tp_buf *a, struct rendered *r)
{
    memset(r, 0, sizeof *r);
    size_t at = 0;
    while (at < a->len) {
        const char *line = a->p + at, *nl = memchr(line, '\n', a->len - at);
        char kind[16];
        unsigned long long len;
        int used = 0;
        if (!nl || sscanf(line, "%15s %llu%n", kind, &len, &used) != 2 || line + used != nl ||
            len > a->len - (size_t)(nl + 1 - a->p))
            return -1;
        struct tp_buf *to = !strcmp(kind, "json")          ? &r->json
                            : !strcmp(kind, "text")        ? &r->text
                            : !strcmp(kind, "html")        ? &r->html
                            : !strcmp(kind, "folded")      ? &r->folded
                            : !strcmp(kind, "folded-heap") ? &r->folded_heap
                            : !strcmp(kind, "pprof")       ? &r->pprof
                            : !strcmp(kind, "pprof-time")  ? &r->pprof_time
                                                           : NULL;
        if (!to)
            return -1;
        to->p = (char *)(nl + 1);
        to->len = to->cap = (size_t)len;
        at = (size_t)(nl + 1 - a->p) + (size_t)len;
    }
    return 0;
}

/* The folded stacks and the pprof profiles, then the trace, the largest, last. */
static void write_extras(struct extras *x, const struct rendered *got, int sig_seq, int snap)
{
    if (tp_cfg.pprof && got && got->pprof.p)
        free(write_out("TPROF_PPROF", tp_cfg.pprof, sig_seq, &got->pprof, snap));
    if (tp_cfg.pprof_time && got && got->pprof_time.p)
        free(write_out("TPROF_PPROF_TIME", tp_cfg.pprof_time, sig_seq, &got->pprof_time, snap));
    if (tp_cfg.folded && got) {
        if (got->folded.p)
            free(write_out("TPROF_FOLDED", tp_cfg.folded, sig_seq, &got->folded, snap));
        if (x->heap_tmpl[0] && got->folded_heap.p)
            free(write_out("TPROF_FOLDED", x->heap_tmpl, sig_seq, &got->folded_heap, snap));
    }
    if (x->trace_made) {
        if (tp_buf_ok(&x->trace))
            free(write_out("TPROF_TRACE", tp_cfg.trace, sig_seq, &x->trace, 0));
        else
            tp_warn("TPROF_TRACE: out of memory while rendering the trace; not written");
    }
    tp_buf_free(&x->trace);
}

/* A signal hurried this report (track/runtime.h): the report says so, since the exit status
 * is that signal's, not the one the program asked for. */
static void hurry_note(struct tp_report *r)
{
    int sig = atomic_load(&tp_hurry_signal);
    if (sig <= 0)
        return;
    const char *name = sigabbrev_np(sig);
    tp_report_note(r,
                   "SIG%s came while this report was written: the process ended by it once the "
                   "report was finished",
                   name ? name : "?");
}

/* ---- the report of an image as it execs another (track/out/output_exec.c) ---- */

static const char *exec_target;

void tp_output_exec_target(const char *path)
{
    exec_target = path;
}

/* Remove a file at path if this image wrote it (own_files): 1 if removed. */
static int unlink_own(const char *path)
{
    struct stat st;
    int i = lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? own_slot(&st) : -1;
    if (i < 0 || unlink(path) < 0)
        return 0;
    own_files[i].dev = 0;
    own_files[i].ino = 0;
    return 1;
}

static void unlink_own_plain(const char *var, const char *tmpl)
{
    char path[4096];
    if (tmpl && report_path(var, tmpl, 0, path, sizeof path) == 0)
        unlink_own(path);
}

/* The plain names go to the image exec starts: a periodic snapshot this one wrote there would
 * look, to that image, like another process's report, and its own would go beside it. */
static void release_plain_names(void)
{
    char heap[4200];
    unlink_own_plain("TPROF_JSON", tp_cfg.json);
    if (strcmp(tp_cfg.output, "none") != 0 && strcmp(tp_cfg.output, "stderr") != 0)
        unlink_own_plain("TPROF_OUTPUT", tp_cfg.output);
    if (tp_cfg.trace)
        unlink_own_plain("TPROF_TRACE", tp_cfg.trace);
    if (tp_cfg.html)
        unlink_own_plain("TPROF_HTML", tp_cfg.html);
    if (tp_cfg.pprof)
        unlink_own_plain("TPROF_PPROF", tp_cfg.pprof);
    if (tp_cfg.pprof_time)
        unlink_own_plain("TPROF_PPROF_TIME", tp_cfg.pprof_time);
    if (tp_cfg.folded) {
        unlink_own_plain("TPROF_FOLDED", tp_cfg.folded);
        heap_folded_template(tp_cfg.folded, heap, sizeof heap);
        unlink_own_plain("TPROF_FOLDED", heap);
    }
}

void tp_output_exec_failed(void)
{
    exec_target = NULL;
    for (int i = 0; i < exec_nfiles; i++)
        unlink_own(exec_files[i]);
    exec_nfiles = 0;
}

/* 1 when this image, as it execs, has a report to write (then named by the image). */
static int exec_report(struct tp_report *r)
{
    exec_nfiles = 0;
    release_plain_names();
    if (!tp_exec_worth_report(r))
        return 0;
    tp_exec_image_name(r, ident.image_seq, exec_image, sizeof exec_image);
    tp_report_note(r,
                   "this image then exec'd %s: the report under the plain name is that of "
                   "the last image of the process",
                   exec_target ? exec_target : "a program given by file descriptor");
    return 1;
}

/* On stderr only the program the user started speaks: the dozens of helpers a script spawns
 * would bury its report (theirs still go to TPROF_JSON / a TPROF_OUTPUT path). An image of it
 * that execs another speaks only when it did something, under a line that says which.
 *
 * A program that closed the stderr it started with (or started without one), when no copy of it
 * could be kept (a pipe: its reader must see end-of-file when the program closes it), leaves no
 * stderr to write to: the report then goes to TEXT_FALLBACK in the working directory, created as
 * every report file is, and is not lost. */
#define TEXT_FALLBACK "tprof.%p.txt"
static void text_to_stderr(const char *why, const struct tp_buf *b, int sig_seq)
{
    if (!ident.is_root || !strcmp(why, "snapshot"))
        return;
    struct tp_buf all;
    tp_buf_init(&all);
    if (exec_image[0]) {
        char target[4096];
        /* the path the program passed to exec, shown escaped: it is the program's, any bytes */
        tp_buf_printf(
            &all, "tprof: report of %s (pid %ld) before it exec'd %s\n", exec_image, ident.pid,
            exec_target ? tp_escape_str(target, sizeof target, exec_target) : "a program");
    }
    tp_buf_put(&all, b->p, b->len);
    /* a stderr that is there but refuses part of it (ulimit -f, a full disk) keeps what it took */
    if (tp_buf_ok(&all) && tp_errout_fd() < 0)
        free(write_out("TPROF_OUTPUT", TEXT_FALLBACK, sig_seq, &all, 0));
    else if (tp_buf_ok(&all))
        (void)tp_errout_write(all.p, all.len);
    tp_buf_free(&all);
}

/* Does a report on `why` go anywhere: a file, or the text on stderr (text_to_stderr)? When
 * nothing is written nothing is collected either: no call site is symbolised and no machine peak
 * measured, so that the helpers a script or a build spawns (make, gcc, cc1, as: thousands of
 * processes, none of which speaks on stderr) end as fast as without tprof. */
int tp_output_wanted(const char *why)
{
    int snapshot = !strcmp(why, "snapshot");
    if (tp_cfg.json || tp_cfg.folded || tp_cfg.html || tp_cfg.pprof || tp_cfg.pprof_time ||
        (tp_cfg.trace && tp_trace_on && !snapshot))
        return 1;
    if (!strcmp(tp_cfg.output, "none"))
        return 0;
    if (strcmp(tp_cfg.output, "stderr") != 0)
        return 1;
    return ident.is_root && !snapshot;
}

static tp_handoff_fn handoff;

void tp_output_set_handoff(tp_handoff_fn fn)
{
    handoff = fn;
}

/* The outputs this report asks the reporter for: the text only where it is written
 * (text_to_stderr). */
static void wanted_kinds(const struct extras *x, const char *why, char *kinds, size_t n)
{
    int text =
        strcmp(tp_cfg.output, "none") != 0 &&
        (strcmp(tp_cfg.output, "stderr") != 0 || (ident.is_root && strcmp(why, "snapshot") != 0));
    snprintf(kinds, n, "%s%s%s%s%s%s%s", tp_cfg.json ? "json," : "",
             text ? (tp_cfg.detail ? "fulltext," : "text,") : "", tp_cfg.html ? "html," : "",
             tp_cfg.folded ? "folded," : "", x->heap_tmpl[0] ? "folded-heap," : "",
             tp_cfg.pprof ? "pprof," : "", tp_cfg.pprof_time ? "pprof-time," : "");
    size_t len = strlen(kinds);
    if (len)
        kinds[len - 1] = 0;
    else
        snprintf(kinds, n, "none");
}

/* No reporter, or it failed: the record itself is kept, where the JSON report would have gone
 * or else beside the program as tprof-record.PID.json, with one line that says how to report it. */
static void keep_record(const struct tp_buf *rec, const char *why, int sig_seq, int snap)
{
    const char *tmpl = tp_cfg.json ? tp_cfg.json : "tprof-record.%p.json";
    char *at = write_out("TPROF_JSON", tmpl, sig_seq, rec, snap);
    char shown[4200], *abs = at && at[0] != '/' ? realpath(at, NULL) : NULL;
    if (abs) { /* the program may have changed directory: the line names the file wherever */
        free(at);
        at = abs;
    }
    /* periodic snapshots say it once, as a failed output is said once */
    static int said_on_snapshot;
    int say = !snap || !said_on_snapshot++;
    if (say && at)
        tp_warn("no report: %s; the record is in %s: `tprof report %s` reports it", why,
                tp_escape_str(shown, sizeof shown, at), shown);
    else if (say)
        tp_warn("no report: %s", why);
    free(at);
}

/* ---- the processes of a run, reported once (common/out/rundir.c) ----
 *
 * A process other than the root whose one output is its JSON file writes its record there and
 * names it in the run's directory: the root's reporter reports it at the root's exit, with the
 * others, and puts the report in its place. 1 when the record was left so (or could not be
 * written, which write_out said); 0 when the run takes no more records (closed: the root has
 * ended) or this report is not one it takes: then it is made now, as a lone process's. */
static int leave_for_run(const struct tp_buf *rec, const char *kinds, int last, const char *why,
                         int sig_seq)
{
    if (ident.is_root || !ident.run_dir[0] || !last || !strcmp(why, "exec") ||
        strcmp(kinds, "json") != 0 || tp_file_is_stream(tp_cfg.json))
        return 0;
    int fd = tp_rundir_join(ident.run_dir);
    if (fd < 0)
        return 0;
    char *at = write_out("TPROF_JSON", tp_cfg.json, sig_seq, rec, 0);
    /* the root's reporter runs in another directory: the entry names the file wherever */
    char *abs = at && at[0] != '/' ? realpath(at, NULL) : NULL;
    int left = !at || tp_rundir_add(fd, abs ? abs : at) == 0;
    tp_rundir_leave(fd);
    free(abs);
    free(at);
    return left;
}

/* The root's last report closes the run first (no record is added after it: a process that
 * ends later reports for itself) and takes the records left so far: the root's reporter then
 * reports them after the root's own report. *paths: n of them, newline-terminated. */
static size_t take_run(struct tp_buf *paths)
{
    char **left;
    size_t n = 0;
    if (tp_rundir_close(ident.run_dir, &left, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            tp_buf_puts(paths, left[i]);
            tp_buf_putc(paths, '\n');
            free(left[i]);
        }
        free(left);
        tp_rundir_remove(ident.run_dir);
    }
    ident.run_dir[0] = 0;
    return tp_buf_ok(paths) ? n : 0;
}

/* Have the reporter (kept for it) report the records the run's other processes left; without a
 * reporter they stay records, each of which `tprof report` reports: one line says where. */
static void report_run(const struct tp_buf *paths, size_t n, int reporter_ok)
{
    struct tp_buf answer;
    char why[4096 + 256], shown[4200];
    tp_buf_init(&answer);
    if (reporter_ok && handoff(paths, "run", 1, 0, &answer, why, sizeof why) == 0) {
        tp_buf_free(&answer);
        return;
    }
    tp_buf_free(&answer);
    const char *nl = memchr(paths->p, '\n', paths->len);
    char first[4096];
    snprintf(first, sizeof first, "%.*s", (int)(nl - paths->p), paths->p);
    tp_escape_str(shown, sizeof shown, first);
    if (!reporter_ok && n == 1)
        tp_warn("another process of this run left its record in %s: `tprof report %s` "
                "reports it",
                shown, shown);
    else if (!reporter_ok)
        tp_warn("%zu other processes of this run left their records in their JSON files (%s, "
                "...): `tprof report` reports each",
                n, shown);
    else
        tp_warn("the reports of this run's other processes may not all be made: %s; a JSON "
                "file of theirs that holds a record (%s, ...) is reported by `tprof report`",
                why, shown);
}

/* Record, have the tprof program report, and write every output. Called with the guard held
 * and recording stopped. */
void tp_write_reports(const char *why, int sig_seq)
{
    if (!tp_output_wanted(why)) {
        tp_collect_unwritten();
        if (!strcmp(why, "exec"))
            release_plain_names();
        return;
    }
    struct tp_report r;
    tp_report_init(&r);
    tp_collect(&r, why);
    if (!strcmp(why, "exec") && !exec_report(&r)) {
        tp_report_free(&r);
        return;
    }
    struct extras x;
    plan_extras(&r, why, sig_seq, &x);
    hurry_note(&r);
    int snap = !strcmp(why, "snapshot");
    struct tp_buf rec, answer;
    tp_buf_init(&rec);
    tp_buf_init(&answer);
    tp_render_json(&r, &rec);
    /* a snapshot or a TPROF_SIGNAL report: the process reports again, the reporter may stay;
     * the root's last report keeps it for the run's other processes' records (report_run) */
    int last = r.record.last, ends = last && strcmp(why, "exec") != 0;
    struct tp_buf run;
    tp_buf_init(&run);
    size_t nrun = ident.is_root && ident.run_dir[0] && ends ? take_run(&run) : 0;
    int keep = (!last && strcmp(why, "exec") != 0) || nrun > 0;
    tp_report_free(&r);
    char kinds[96], failed[4096 + 256];
    wanted_kinds(&x, why, kinds, sizeof kinds);
    if (tp_buf_ok(&rec) && leave_for_run(&rec, kinds, last, why, sig_seq)) {
        write_extras(&x, NULL, sig_seq, snap);
        tp_buf_free(&rec);
        tp_buf_free(&run);
        exec_image[0] = 0;
        return;
    }
    struct rendered got;
    int ok = tp_buf_ok(&rec);
    if (!ok)
        snprintf(failed, sizeof failed, "out of memory while writing the record");
    else if (!handoff)
        snprintf(failed, sizeof failed, "no reporter");
    else
        ok = handoff(&rec, kinds, (int)tp_cfg.top, keep, &answer, failed, sizeof failed) == 0;
    if (ok && split_answer(&answer, &got) < 0) {
        snprintf(failed, sizeof failed, "the reporter's answer is not in its format");
        ok = 0;
    }
    if (!ok) {
        if (tp_buf_ok(&rec))
            keep_record(&rec, failed, sig_seq, snap);
        write_extras(&x, NULL, sig_seq, snap);
    } else {
        if (tp_cfg.json && got.json.p)
            free(write_out("TPROF_JSON", tp_cfg.json, sig_seq, &got.json, snap));
        if (strcmp(tp_cfg.output, "none") != 0 && got.text.p) {
            if (!strcmp(tp_cfg.output, "stderr"))
                text_to_stderr(why, &got.text, sig_seq);
            else
                free(write_out("TPROF_OUTPUT", tp_cfg.output, sig_seq, &got.text, snap));
        }
        if (tp_cfg.html && got.html.p)
            free(write_out("TPROF_HTML", tp_cfg.html, sig_seq, &got.html, snap));
        write_extras(&x, &got, sig_seq, snap);
    }
    tp_buf_free(&rec);
    tp_buf_free(&answer);
    exec_image[0] = 0;
    if (nrun)
        report_run(&run, nrun, ok);
    tp_buf_free(&run);
}
