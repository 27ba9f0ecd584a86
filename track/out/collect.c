/* The record (report/report.h, struct tp_record) from the live tables: program, memory and
 * sites here; ops, steps and op-time stacks from ops_collect.c. Nothing here reads a file's
 * debug information or analyses: the tprof program does (report/record.c). Runs once per report,
 * with the guard held. */
#include "track/out/out.h"
#include "common/buf.h"
#include "common/config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"
#include "track/steps/steps.h"
#include "track/gpu/gpu.h"
#include "track/heap/heap.h"
#include "track/runtime.h"
#include "track/ops/ops.h"
#include "track/out/output_exec.h"
#include "common/out/out.h"
#include "common/suppress.h"
#include "track/rawalloc.h"
#include "track/sites/sites.h"
#include "track/sym/sym.h"

/* 1 on the threads of tprof's that write reports before the end (snapshots, TPROF_SIGNAL) */
static TP_TLS int interim;

void tp_collect_interim_thread(void)
{
    interim = 1;
}

/* Does this report end the process? Only that one may have the machine's peaks measured (the
 * reporter's quick measurement, report/record.c): one before it (a snapshot, a report on signal,
 * an image that execs) goes without, as a measurement each time would cost a quarter of a second. */
static int collect_last(const char *why)
{
    return !interim && (!why || strcmp(why, "exec") != 0);
}

/* argv from /proc/self/cmdline: the program's own argv may have been rewritten. */
static void collect_argv(struct tp_program *p)
{
    char buf[8192];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = 0;
    size_t count = 0;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0)
            count++;
    if (buf[n - 1] != 0)
        count++;
    p->argv = calloc(count, sizeof *p->argv);
    if (!p->argv)
        return;
    for (char *s = buf; s < buf + n && p->argc < count; s += strlen(s) + 1)
        p->argv[p->argc++] = strdup(s);
}

static void collect_program(struct tp_program *p)
{
    char buf[4096];
    collect_argv(p);
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        p->exe = strdup(buf);
    }
    if (gethostname(buf, sizeof buf - 1) == 0) {
        buf[sizeof buf - 1] = 0;
        p->host = strdup(buf);
    }
    p->pid = getpid();
    p->ppid = getppid();
    p->rank = tp_mpi_rank(tp_env_get);
    p->wall_ns = tp_now_ns() - tp_start_ns;
    p->threads = tp_threads_ran();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now_unix = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    p->start_unix_ns = now_unix > p->wall_ns ? now_unix - p->wall_ns : 0;
}

/* The order in which sites are reported: what held the peak first, then what grew largest. */
static int by_importance(const void *a, const void *b)
{
    return tp_site_cmp_importance(a, b);
}

/* A site's return addresses as a record's frames: module and offset each, named by the reporter
 * (no file is read here). tprof's own frames (a BLAS op that allocates) are no part of the
 * program's call path: left out here, where they are known by address. */
static void record_frames(uint32_t id, struct tp_site *out)
{
    uint32_t n;
    const uintptr_t *pcs = tp_site_frames(id, &n);
    out->frames = calloc(n ? n : 1, sizeof *out->frames);
    if (!out->frames)
        return;
    if (id == 0) {
        out->frames[0].function = strdup("[call-site table full]");
        out->nframes = 1;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t pc = pcs[i], at = pc ? pc - 1 : 0; /* a return address: the call is before it */
        if (tp_addr_is_ours(at))
            continue;
        struct tp_frame *f = &out->frames[out->nframes++];
        char path[4096];
        uintptr_t bias;
        const struct tp_departed *d;
        f->offset = pc;
        if (tp_symtab_module(at, path, sizeof path, &bias, NULL, NULL) == 0) {
            f->module = strdup(path);
            f->offset = pc - bias;
        } else if ((d = tp_modmap_departed_at(at))) {
            f->module = strdup(d->path);
            f->offset = pc - d->base;
        }
    }
}

/* Every site that saw an allocation or holds bytes, into an array (k of them), their sums into
 * m. A site's record number waits in nframes until its frames are symbolised. */
static struct tp_site *gather_sites(struct tp_memory *m, const struct tp_heap_totals *t, size_t *nk)
{
    uint32_t n = tp_sites_count();
    struct tp_site *all = calloc(n ? n : 1, sizeof *all);
    size_t k = 0;
    for (uint32_t i = 0; all && i < n; i++) {
        struct tp_site_sum s;
        tp_site_get(i, &s);
        if (s.nframes == 0 || (s.allocs == 0 && s.live == 0 && s.frees == 0))
            continue;
        struct tp_site *o = &all[k];
        o->allocs = s.allocs;
        o->frees = s.frees;
        o->bytes = s.bytes;
        o->peak_live_bytes = s.peak_live;
        o->live_at_exit_bytes = s.live;
        o->live_at_exit_allocs = o->allocs >= o->frees ? o->allocs - o->frees : 0;
        /* A site untouched since the last global peak still holds what it held then. */
        o->live_at_peak_bytes = s.seen_pseq == t->pseq ? s.at_peak : s.live;
        m->allocs += o->allocs;
        m->frees += o->frees;
        m->bytes_allocated += o->bytes;
        m->live_at_exit_allocs += o->live_at_exit_allocs;
        o->nframes = i; /* the record number, until the frames are symbolised */
        k++;
    }
    *nk = k;
    return all;
}

/* Of the peak, what outlived the unit that allocated it and what was freed within it, and what
 * the unit was (track/steps/lifeunit.c). No unit ended: no split. */
static void lifetime_split(struct tp_report *r, const struct tp_heap_totals *t)
{
    struct tp_memory *m = &r->memory;
    int op = -1;
    double share;
    enum tp_unit_kind k = tp_lifeunit_kind(&op);
    const char *step = NULL;
    switch (k) {
    case TP_UNIT_NONE: return;
    case TP_UNIT_OP_CALL:
        m->lifetime_unit = strdup("op_call");
        op = tp_cfg.step ? -1 : tp_lifeunit_turned_down(&share);
        if (op >= 0 && tp_ops_name(op))
            tp_report_note(r,
                           "no TPROF_STEP and no step detected: %s repeats and encloses other "
                           "ops, but only %s%.0f%% of the time in outermost op calls (a step "
                           "encloses at least 10%%), so each outermost op call is the unit; "
                           "TPROF_STEP names the step",
                           tp_ops_name(op), share < 0.005 ? "<" : "",
                           share < 0.005 ? 1.0 : 100 * share);
        break;
    case TP_UNIT_DETECTED:
        m->lifetime_unit = strdup("detected_step");
        step = tp_ops_name(op);
        break;
    case TP_UNIT_STEP:
        m->lifetime_unit = strdup(tp_cfg.step && *tp_cfg.step ? "step" : "ggml_graph");
        step = tp_steps_function();
        break;
    case TP_UNIT_MARK:
        m->lifetime_unit = strdup("step_marker");
        step = "tprof_step";
        break;
    }
    m->lifetime_step = step ? strdup(step) : NULL;
    if (k == TP_UNIT_DETECTED && step)
        tp_report_note(r,
                       "no TPROF_STEP: the step is taken to be %s, the op that repeats and "
                       "encloses the most op time (%.0f%% of the time in outermost op calls; an "
                       "allocator or free function never is); TPROF_STEP names another",
                       step, 100 * tp_lifeunit_detected_share());
    m->transient_bytes = t->transient_at_peak;
    m->persistent_bytes = t->peak - t->transient_at_peak;
}

/* The call-site table could not take every stack: say why, and exactly what its overflow site
 * (site 0) holds, i.e. what is not attributed to its own call site. */
static void sites_lost_note(struct tp_report *r)
{
    struct tp_site_sum o;
    struct tp_sites_state st;
    tp_site_get(0, &o);
    tp_sites_state(&st);
    char why[128];
    if (st.limit == TP_SITES_MAX_SITES)
        snprintf(why, sizeof why, "TPROF_MAX_SITES=%llu", (unsigned long long)tp_cfg.max_sites);
    else if (st.limit == TP_SITES_BUDGET)
        snprintf(why, sizeof why, "TPROF_MEMORY_BUDGET=%llu bytes reached at %llu sites",
                 (unsigned long long)st.budget, (unsigned long long)st.cap);
    else
        snprintf(why, sizeof why, "no memory for more than %llu sites", (unsigned long long)st.cap);
    r->partial = 1;
    tp_report_note(r,
                   "call-site table full (%s): %llu allocations of %llu bytes (%llu bytes live at "
                   "exit) are not attributed to their call sites; they are counted in one "
                   "overflow site, [call-site table full]",
                   why, (unsigned long long)o.allocs, (unsigned long long)o.bytes,
                   (unsigned long long)o.live);
}

/* The heap's totals, and notes on what the tables could not hold. */
static void memory_totals(struct tp_report *r, const struct tp_heap_totals *t)
{
    struct tp_memory *m = &r->memory;
    m->peak_bytes = t->peak;
    m->peak_ns = t->peak_ns > tp_start_ns ? t->peak_ns - tp_start_ns : 0;
    const char *op = t->peak_op >= 0 ? tp_ops_name(t->peak_op) : NULL;
    m->peak_op = op ? strdup(op) : NULL;
    m->live_at_exit_bytes = t->live;
    m->unknown_frees = t->unknown_frees;
    m->failed_allocs = t->failed_allocs;
    m->alloc_ns = t->alloc_ns;
    if (tp_heap_tracking())
        m->alloc_ns_method = strdup(tp_heap_alloc_method());
    lifetime_split(r, t);
    tp_ggmlbuf_collect(r, t->peak ? t->peak_ns : 0);

    if (t->dropped)
        tp_report_note(r, "%llu allocations could not be tracked (heap table full)",
                       (unsigned long long)t->dropped);
    if (tp_sites_dropped())
        sites_lost_note(r);
}

/* Move up to cap sites still live at exit from [from, k) to just after from: they are
 * symbolised too, so that small leaks (a system library's few bytes) are named and classified
 * in a program with thousands of sites. Returns how many moved. */
static size_t leaks_forward(struct tp_site *all, size_t from, size_t k, size_t cap)
{
    size_t moved = 0;
    for (size_t i = from; i < k && moved < cap; i++) {
        if (!all[i].live_at_exit_bytes)
            continue;
        struct tp_site t = all[from + moved];
        all[from + moved] = all[i];
        all[i] = t;
        moved++;
    }
    return moved;
}

/* A return address of a rolled-up site (track/sites/rollup.c): the function holding it by the symbol
 * tables (a binary search; no debug information read, inlined functions not told apart), its
 * module; passed over when it is ours or the allocator's, as symbolize_site() does. */
static int describe_pc(void *ctx, uintptr_t pc, char **function, char **module)
{
    (void)ctx;
    char name[1024], path[4096];
    uintptr_t bias, lo, hi;
    *function = *module = NULL;
    if (pc == 0) { /* the overflow site's one frame */
        *function = strdup("[call-site table full]");
        return 0;
    }
    if (tp_addr_is_ours(pc))
        return 1;
    if (tp_symtab_lookup(pc - 1, name, sizeof name, NULL) == 0) {
        if (tp_frame_is_allocator(name))
            return 1;
        char *d = tp_symtab_demangled(name);
        *function = strdup(d ? d : name);
        tp_free(d);
    }
    if (tp_symtab_module(pc - 1, path, sizeof path, &bias, &lo, &hi) == 0)
        *module = strdup(path);
    return 0;
}

/* The sites the JSON writes one by one (the top TPROF_JSON_SITES by each measure,
 * track/sites/rollup.c) and a bounded number more that are live at exit (for the reporter to
 * classify small leaks) go into the record with their frames; the rest are rolled up by the
 * symbol tables. The reporter names the frames, merges the sites that name the same lines and
 * classifies them (report/record.c). */
static void keep_sites(struct tp_report *r, struct tp_site *all, size_t k)
{
    struct tp_memory *m = &r->memory;
    /* Only the sites selected are sorted: ties at the selection's edge go by record number. */
    size_t nsel = tp_rollup_select(all, k, tp_cfg.json_sites > 0 ? (size_t)tp_cfg.json_sites : k);
    qsort(all, nsel, sizeof *all, by_importance);
    size_t nleak = leaks_forward(all, nsel, k, nsel), rest = k - nsel;
    m->nsites_total = k;
    if (rest)
        tp_rollup_sites(m, all + nsel, rest, tp_site_frames, describe_pc, NULL);
    for (size_t i = 0; i < nsel + nleak; i++) {
        uint32_t id = (uint32_t)all[i].nframes;
        all[i].nframes = 0;
        record_frames(id, &all[i]);
    }
    for (size_t i = nsel + nleak; i < k; i++)
        all[i].nframes = 0; /* a record number, not frames */
    r->record.leak_sites = nleak;
    m->sites = all;
    m->nsites = all ? nsel + nleak : 0;
}

/* A mapping's call site, as a site's. */
static void mapping_frames(uint32_t site, struct tp_mapping *out)
{
    struct tp_site s = {0};
    record_frames(site, &s);
    out->frames = s.frames;
    out->nframes = s.nframes;
}

/* A device allocation's call site, as a site's. */
static void gpu_frames(uint32_t site, struct tp_frame **frames, size_t *n)
{
    struct tp_site s = {0};
    record_frames(site, &s);
    *frames = s.frames;
    *n = s.nframes;
}

/* The kernel's high-water mark and the memory ledger, before the report's own memory is
 * allocated: what tprof takes to make the report is no part of the program's peak. */
static void collect_rss(struct tp_report *r)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        r->memory.peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
    tp_ledger_collect(r, mapping_frames);
}

static void collect_memory(struct tp_report *r)
{
    struct tp_heap_totals t;
    tp_heap_totals(&t);
    size_t k = 0;
    struct tp_site *all = gather_sites(&r->memory, &t, &k);
    memory_totals(r, &t);
    keep_sites(r, all, k);
}

void tp_collect(struct tp_report *r, const char *why)
{
    r->tprof_version = strdup(TPROF_VERSION);
    collect_program(&r->program);
    /* An image that execs with nothing of its own to report: no report is written (output.c),
     * so none is built. */
    if (why && !strcmp(why, "exec") && !tp_exec_own_work())
        return;
    collect_rss(r);
    tp_cpu_collect(r);
    collect_memory(r);
    tp_ops_collect(r);
    tp_series_collect(r, tp_ops_name);
    tp_unmatched_notes(r, atomic_load(&tp_state) == TP_FINISHING);
    tp_sample_collect(r);
    tp_wait_collect(r);
    tp_components_notes(r, 1);
    tp_optree_collect(r);
    tp_gpu_collect(r, gpu_frames);
    tp_components_notes(r, 0);
    r->record.version = 1;
    r->record.last = collect_last(why);
    r->record.json_sites = (uint64_t)(tp_cfg.json_sites > 0 ? tp_cfg.json_sites : 0);
    r->record.suppress = tp_dup_or_null(tp_cfg.suppress);
    r->record.debuginfod = tp_cfg.debuginfod;
    r->record.peak_gflops = tp_cfg.peak_gflops;
    r->record.peak_gbps = tp_cfg.peak_gbps;
    tp_modmap_collect(r);
    if (r->program.threads > 1)
        tp_report_note(r,
                       "%llu threads allocated: per-site live-at-peak figures are exact only "
                       "for one thread",
                       (unsigned long long)r->program.threads);
    if (why && strcmp(why, "exit") != 0)
        tp_report_note(r, "report written on %s", why);
    uint64_t sn, sns, smax;
    tp_snapshot_stats(&sn, &sns, &smax);
    if (sn)
        tp_report_note(r,
                       "TPROF_SNAPSHOT: %llu snapshots written, %.2f ms each on average, %.2f ms "
                       "at most, by a thread of tprof's beside the program",
                       (unsigned long long)sn, (double)sns / 1e6 / (double)sn, (double)smax / 1e6);
}

void tp_collect_unwritten(void)
{
    if (atomic_load(&tp_state) != TP_FINISHING || !tp_unmatched_possible())
        return; /* collecting the ops costs a measurement of the hooks' cost */
    struct tp_report r;
    tp_report_init(&r);
    tp_ops_collect(&r);
    tp_unmatched_notes(&r, 1);
    tp_report_free(&r);
}
