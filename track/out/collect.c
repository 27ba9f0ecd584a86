/* The report model from the live tables: program, memory and sites here; ops, steps and op-time
 * stacks from ops_collect.c; machine peaks from report/peaks.c. Runs once per report, with the
 * guard held. */
#include "track/out/out.h"
#include "common/buf.h"
#include "common/config.h"
#include "track/out/collect_machine.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"
#include "track/steps/steps.h"
#include "track/heap/heap.h"
#include "track/runtime.h"
#include "track/ops/ops.h"
#include "track/out/output_exec.h"
#include "common/out/out.h"
#include "common/suppress.h"
#include "report/peaks/peaks.h"
#include "track/rawalloc.h"
#include "track/sites/sites.h"
#include "track/sym/sym.h"

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

/* Names that are the allocator seen from C++: the call site is the frame above them. */
static int is_allocator_frame(const struct tp_frame *f)
{
    return f->function && (!strncmp(f->function, "_Znwm", 5) || !strncmp(f->function, "_Znam", 5) ||
                           !strncmp(f->function, "operator new", 12));
}

/* A frame inside libtprof.so itself. */
static int is_own_frame(const struct tp_frame *f)
{
    static char self[4096];
    static int known = -1;
    if (known < 0) {
        Dl_info di;
        known =
            dladdr((void *)&tp_collect, &di) && di.dli_fname && strlen(di.dli_fname) < sizeof self;
        if (known)
            strcpy(self, di.dli_fname);
    }
    return known && f->module && !strcmp(f->module, self);
}

static void free_frame(struct tp_frame *f)
{
    free(f->function);
    free(f->file);
    free(f->module);
    memset(f, 0, sizeof *f);
}

/* A site's return addresses as source frames: each may stand for several, the functions the
 * compiler inlined at it (track/sym/symbolize.c). */
static void symbolize_site(struct tp_symbolizer *sym, uint32_t id, struct tp_site *out)
{
    uint32_t n;
    const uintptr_t *pcs = tp_site_frames(id, &n);
    size_t cap = (size_t)(n ? n : 1) + TP_SYM_MAX_FRAMES;
    out->frames = calloc(cap, sizeof *out->frames);
    if (!out->frames)
        return;
    if (id == 0) {
        out->frames[0].function = strdup("[call-site table full]");
        out->nframes = 1;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (cap - out->nframes < TP_SYM_MAX_FRAMES) {
            struct tp_frame *g = realloc(out->frames, 2 * cap * sizeof *g);
            if (!g)
                break;
            memset(g + cap, 0, cap * sizeof *g);
            out->frames = g;
            cap *= 2;
        }
        struct tp_frame *f = &out->frames[out->nframes];
        int k = tp_sym_frames(sym, pcs[i], 1, f, TP_SYM_MAX_FRAMES);
        /* tprof's own wrappers (a BLAS op that allocates) are not the program's call path. */
        if (k > 0 &&
            (is_own_frame(&f[k - 1]) || (out->nframes == 0 && is_allocator_frame(&f[k - 1])))) {
            for (int j = 0; j < k; j++)
                free_frame(&f[j]);
            continue;
        }
        out->nframes += (size_t)k;
    }
}

/* Symbolised frames by site id, kept from one report to the next: a site's return addresses
 * never change, and opening libdw and looking every address up again made each periodic
 * snapshot (TPROF_SNAPSHOT) cost tens of milliseconds. Only reports write it, under the report
 * lock. */
static struct frame_cache {
    struct tp_frame *frames;
    size_t n;
    int set;
} * fcache;
static size_t fcache_len;

static void copy_frames(const struct tp_frame *from, size_t n, struct tp_frame **to, size_t *nto)
{
    *to = calloc(n ? n : 1, sizeof **to);
    *nto = 0;
    if (!*to)
        return;
    for (size_t i = 0; i < n; i++) {
        struct tp_frame *f = &(*to)[i];
        *f = from[i];
        f->function = tp_dup_or_null(from[i].function);
        f->file = tp_dup_or_null(from[i].file);
        f->module = tp_dup_or_null(from[i].module);
    }
    *nto = n;
}

static int cached_frames(uint32_t id, struct tp_site *out)
{
    if (id == 0 || id >= fcache_len || !fcache[id].set)
        return 0;
    copy_frames(fcache[id].frames, fcache[id].n, &out->frames, &out->nframes);
    return out->frames != NULL;
}

static void cache_frames(uint32_t id, const struct tp_site *s)
{
    if (id == 0 || !s->frames)
        return;
    if (id >= fcache_len) {
        size_t len = fcache_len ? fcache_len : 1024;
        while (len <= id)
            len *= 2;
        struct frame_cache *c = realloc(fcache, len * sizeof *c);
        if (!c)
            return;
        memset(c + fcache_len, 0, (len - fcache_len) * sizeof *c);
        fcache = c;
        fcache_len = len;
    }
    copy_frames(s->frames, s->nframes, &fcache[id].frames, &fcache[id].n);
    fcache[id].set = fcache[id].frames != NULL;
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
        m->lifetime_unit = strdup("step");
        step = tp_cfg.step;
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
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        m->peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;

    if (t->dropped)
        tp_report_note(r, "%llu allocations could not be tracked (heap table full)",
                       (unsigned long long)t->dropped);
    if (tp_sites_dropped())
        sites_lost_note(r);
}

/* A leak matched by a TPROF_SUPPRESS pattern: a function, source file or module of any frame. */
static int suppressed(const struct tp_site *s)
{
    for (size_t i = 0; tp_cfg.suppress && i < s->nframes; i++) {
        const struct tp_frame *f = &s->frames[i];
        if (tp_suppress_match(tp_cfg.suppress, f->function) ||
            tp_suppress_match(tp_cfg.suppress, f->file) ||
            tp_suppress_match(tp_cfg.suppress, f->module))
            return 1;
    }
    return 0;
}

/* Flag the n symbolised sites (a role, a system library's, an interpreter's, suppressed), and
 * split what is live at exit accordingly: the program's part is the rest, sites left
 * unsymbolised included. */
static void classify_sites(struct tp_memory *m, struct tp_site *all, size_t n)
{
    uint64_t sys_b = 0, sys_n = 0, sup_b = 0, sup_n = 0, int_b = 0, int_n = 0;
    tp_sites_classify(all, n);
    for (size_t i = 0; i < n; i++) {
        struct tp_site *s = &all[i];
        s->suppressed = s->live_at_exit_bytes && suppressed(s);
        if (s->suppressed) {
            sup_b += s->live_at_exit_bytes;
            sup_n += s->live_at_exit_allocs;
        } else if (s->system) {
            sys_b += s->live_at_exit_bytes;
            sys_n += s->live_at_exit_allocs;
        } else if (s->interpreter) {
            int_b += s->live_at_exit_bytes;
            int_n += s->live_at_exit_allocs;
        }
    }
    m->live_at_exit_system_bytes = sys_b;
    m->live_at_exit_system_allocs = sys_n;
    m->live_at_exit_suppressed_bytes = sup_b;
    m->live_at_exit_suppressed_allocs = sup_n;
    m->live_at_exit_interpreter_bytes = int_b;
    m->live_at_exit_interpreter_allocs = int_n;
    uint64_t kb = sys_b + sup_b + int_b, kn = sys_n + sup_n + int_n;
    m->live_at_exit_program_bytes = m->live_at_exit_bytes > kb ? m->live_at_exit_bytes - kb : 0;
    m->live_at_exit_program_allocs = m->live_at_exit_allocs > kn ? m->live_at_exit_allocs - kn : 0;
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
        struct tp_frame f = {.function = name};
        if (is_allocator_frame(&f))
            return 1;
        char *d = tp_symtab_demangled(name);
        *function = strdup(d ? d : name);
        tp_free(d);
    }
    if (tp_symtab_module(pc - 1, path, sizeof path, &bias, &lo, &hi) == 0)
        *module = strdup(path);
    return 0;
}

/* Symbolise the sites the JSON writes one by one (the top TPROF_JSON_SITES by each measure,
 * track/sites/rollup.c) and a bounded number more that are live at exit (to classify small leaks),
 * merge those that name the same source lines, classify them, roll the rest up. */
static void keep_sites(struct tp_report *r, struct tp_site *all, size_t k)
{
    struct tp_memory *m = &r->memory;
    /* Only the sites selected are sorted: ties at the selection's edge go by record number. */
    size_t nsel = tp_rollup_select(all, k, tp_cfg.json_sites > 0 ? (size_t)tp_cfg.json_sites : k);
    qsort(all, nsel, sizeof *all, by_importance);
    size_t nsym = nsel + leaks_forward(all, nsel, k, nsel);
    struct tp_symbolizer *sym = NULL;
    for (size_t i = 0; i < nsym; i++) {
        uint32_t id = (uint32_t)all[i].nframes;
        all[i].nframes = 0;
        if (cached_frames(id, &all[i]))
            continue;
        if (!sym)
            sym = tp_sym_open();
        symbolize_site(sym, id, &all[i]);
        cache_frames(id, &all[i]);
    }
    size_t merged = all ? tp_sites_merge_same_lines(all, nsel, m->peak_bytes) : 0;
    if (merged < nsel)
        tp_report_note(r, "sites that differ only in instruction address (unrolled or duplicated "
                          "code) are merged by source line; their own peak is then an upper bound");
    size_t rest = k - nsel; /* from all + merged on: the extra symbolised ones first */
    if (merged < nsel)
        memmove(all + merged, all + nsel, rest * sizeof *all);
    m->nsites_total = merged + rest;
    qsort(all, merged, sizeof *all, by_importance);
    classify_sites(m, all, merged + (nsym - nsel));
    if (rest) {
        tp_rollup_sites(m, all + merged, rest, tp_site_frames, describe_pc, NULL);
        tp_report_note(r,
                       "%zu of %llu call sites written (TPROF_JSON_SITES=%d: the top %d by live "
                       "at peak, bytes, allocations and live at exit); the other %zu are rolled "
                       "up per function and module into %zu rows (memory.site_rollups)",
                       merged, (unsigned long long)m->nsites_total, tp_cfg.json_sites,
                       tp_cfg.json_sites, rest, m->nrollups);
    }
    if (sym)
        tp_sym_close(sym);
    for (size_t i = merged; i < merged + rest; i++) {
        if (!all[i].frames)
            all[i].nframes = 0; /* a record number, not frames */
        tp_site_free_frames(&all[i]);
    }
    m->sites = all;
    m->nsites = all ? merged : 0;
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
    tp_cpu_collect(r);
    collect_memory(r);
    tp_ops_collect(r);
    tp_series_collect(r, tp_ops_name);
    tp_unmatched_notes(r, atomic_load(&tp_state) == TP_FINISHING);
    tp_sample_collect(r);
    tp_wait_collect(r);
    tp_components_notes(r, 1);
    tp_optree_collect(r);
    tp_components_notes(r, 0);
    tp_collect_machine(r, why);
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
