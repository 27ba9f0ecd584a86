/* The memory ledger: where the resident memory went (see track/heap/heap.h).
 *
 * A program's RSS is more than its heap: files it maps (a model's weights), anonymous memory it
 * maps itself (an interpreter's arenas, a runtime's pools), what the allocator keeps after the
 * program freed it, thread stacks, the code and data of libraries, and tprof. The kernel says
 * what of each area of the address space is resident (/proc/self/smaps, smaps.c); maps.c says
 * which areas the program mapped, from where, and which are tprof's; the heap's own figures say
 * how much of the allocator's memory is in use. Each area is put in one part:
 *   - tprof: tprof's own mappings, and libtprof.so's file and data;
 *   - file / anonymous: the program's own mmap calls, by file and by call site;
 *   - stacks: the main thread's "[stack]" and the areas that hold a stack pointer a thread of the
 *     program had when it started;
 *   - libraries: areas of ELF files, the anonymous area just after one (its .bss), the vdso;
 *   - other files: files mapped without the program's mmap (glibc's locale archive);
 *   - the allocator's memory: "[heap]" and the anonymous areas no one else claims (glibc's arenas
 *     and its mappings of large blocks, made inside libc). Of it, the heap in use is the live
 *     bytes (at most all of it), the rest the allocator's: retained (free bytes it holds, from
 *     mallinfo2) and overhead (headers, rounding, tprof's own small blocks);
 *   - other: the kernel's special areas.
 * An area that holds the program's mappings and more (the kernel merges neighbouring anonymous
 * areas) is split by mincore for anonymous memory, in proportion to size for a file.
 *
 * smaps is read at a bounded rate, never on every call: at most every 50 ms at an outermost op
 * call's begin or end or a step's end, and then only when statm's RSS is higher than the best
 * reading's by a 256th or a point of the memory over time is due (every 100 ms, less often as the
 * points fill); before the program frees or unmaps 1 MiB or more, at most every 10 ms, when RSS
 * is that much higher (the moment before a peak ends); and at the report. All reads together,
 * statm's included, take at most 0.5% of the run's time after their first 20 ms, the points of
 * the memory over time alone at most 0.25% and none of the first 20 ms, but for a reading before a
 * release of an RSS higher than the best by a 16th, always made (maybe_read says why): a reading of
 * smaps costs 1 to 3 ms for a C program's hundred areas (the kernel walks their page tables),
 * more for an interpreter's thousands.
 * The reading with the highest RSS is the ledger; the kernel's high-water mark can be higher
 * (a peak between two readings): that difference is the ledger's "unexplained" row.
 *
 * Long because the readings, their budget, the highest of them and the points over time are one
 * piece of state that the report's rows are made from at the end; in two files that state would
 * need a header of its own, shared by code that has no other reason to know it. */
#include "track/heap/heap.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/pages.h"
#include "report/report.h"
#include "track/runtime.h"

enum { K_HEAP, K_ALLOC, K_FILE, K_ANON, K_STACKS, K_LIBS, K_TPROF, K_OTHER, NK };

#define MAX_MAPS       16384
#define MAX_STACKS     4096
#define MAX_FILES      16  /* files mapped without the program's mmap, named one by one */
#define SERIES_CAP     256 /* points of the memory over time */
#define LIB_CACHE      1024
#define TICK_GAP_NS    (50 * 1000000ull)
#define RELEASE_GAP_NS (10 * 1000000ull)
#define SERIES_GAP_NS  (100 * 1000000ull)
#define FREE_SPEND_NS  (20 * 1000000ull)

/* One reading. */
struct snap {
    uint64_t ns, rss, pss;
    uint64_t res[NK], mapped[NK];
    uint64_t pool, pool_mapped; /* the allocator's areas */
    uint64_t heap_live, heap_res, retained, overhead;
    uint64_t agg_res[TP_MAPS_MAX_AGGS], agg_live[TP_MAPS_MAX_AGGS];
    size_t naggs;
    char file[MAX_FILES][256];
    uint64_t file_res[MAX_FILES], file_mapped[MAX_FILES], more_files_res, more_files_mapped;
    size_t nfiles;
    uint64_t stack_areas, lib_paths;
};

struct point {
    uint64_t ns, rss, res[NK];
};

_Atomic uint64_t tp_ledger_due;
static atomic_flag busy = ATOMIC_FLAG_INIT;
static struct snap peak, work;
static int have_peak;
static struct point series[SERIES_CAP];
static size_t nseries;
static uint64_t series_gap = SERIES_GAP_NS, series_due, release_due, spent, reads;
static uint64_t gap_ticks; /* TICK_GAP_NS in ticks */
static uint64_t retained;  /* mallinfo2's free bytes at the last reading that could ask */

/* Scratch of one reading (under busy): static, as a reading may run on a thread with a small
 * stack (64 KiB of call sites would not fit everywhere). */
static struct tp_map maps[MAX_MAPS];
static struct tp_map_agg aggs[TP_MAPS_MAX_AGGS];
static size_t nmaps;
static uintptr_t stacks[MAX_STACKS];
static size_t nstacks;
static char own_path[PATH_MAX];
static int own_known;

/* Paths known to be ELF objects or not: a hash each, 1 ELF, 2 not. */
static struct {
    uint64_t hash;
    int what;
} libs[LIB_CACHE];

/* ---- whose is an area ---- */

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h | 1;
}

/* Is path an ELF file (a library, the program)? Its first bytes read once, remembered. */
static int is_elf(const char *path)
{
    uint64_t h = hash(path);
    size_t i = h % LIB_CACHE;
    for (size_t k = 0; k < LIB_CACHE; k++, i = (i + 1) % LIB_CACHE) {
        if (libs[i].hash == h)
            return libs[i].what == 1;
        if (!libs[i].hash)
            break;
    }
    /* only a regular file is opened: a device's open may act (a GPU driver's makes a context) */
    char magic[4] = {0};
    struct stat st;
    int fd = stat(path, &st) == 0 && S_ISREG(st.st_mode)
                 ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
                 : -1;
    int elf = fd >= 0 && pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "\177ELF", 4);
    if (fd >= 0)
        close(fd);
    if (!libs[i].hash)
        libs[i].hash = h, libs[i].what = elf ? 1 : 2;
    return elf;
}

/* libtprof.so's path as the kernel writes it, found once. */
static void find_own_path(void)
{
    Dl_info di;
    if (own_known)
        return;
    own_known = 1;
    if (dladdr((void *)&find_own_path, &di) && di.dli_fname && !realpath(di.dli_fname, own_path))
        own_path[0] = 0;
}

void tp_ledger_start(void)
{
    if (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return;
    find_own_path();
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

static int holds_stack(uintptr_t lo, uintptr_t hi)
{
    size_t a = 0, b = nstacks;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (stacks[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    return a < nstacks && stacks[a] < hi;
}

/* The first kept range that ends after p. */
static size_t map_after(uintptr_t p)
{
    return tp_maps_after(maps, nmaps, p);
}

struct walk {
    struct snap *s;
    int prev_kind;
    uintptr_t prev_hi;
};

static void add(struct snap *s, int kind, uint64_t res, uint64_t len)
{
    s->res[kind] += res;
    s->mapped[kind] += len;
}

static void add_file(struct snap *s, const char *path, uint64_t res, uint64_t len)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (!strcmp(s->file[i], path)) {
            s->file_res[i] += res;
            s->file_mapped[i] += len;
            return;
        }
    if (s->nfiles < MAX_FILES) {
        snprintf(s->file[s->nfiles], sizeof s->file[0], "%s", path);
        s->file_res[s->nfiles] = res;
        s->file_mapped[s->nfiles++] = len;
    } else {
        s->more_files_res += res;
        s->more_files_mapped += len;
    }
}

/* What of the area no kept range claims: whose it is by its name and neighbours. */
static int area_kind(struct walk *w, const struct tp_vma *v)
{
    const char *p = v->path;
    if (p[0] == '/') {
        if (own_path[0] && !strcmp(p, own_path))
            return K_TPROF;
        return is_elf(p) ? K_LIBS : K_FILE;
    }
    if (!strcmp(p, "[stack]"))
        return K_STACKS;
    if (!strcmp(p, "[heap]"))
        return K_ALLOC;
    if (!strcmp(p, "[vdso]") || !strcmp(p, "[vvar]") || !strcmp(p, "[vsyscall]"))
        return K_LIBS;
    if (p[0] == '[' && strncmp(p, "[anon:", 6))
        return K_OTHER;
    /* anonymous: a library's .bss (tprof's too) follows its data */
    if (v->lo == w->prev_hi && (w->prev_kind == K_LIBS || w->prev_kind == K_TPROF) &&
        v->perms[0] == 'r' && v->perms[1] == 'w')
        return w->prev_kind;
    if (holds_stack(v->lo, v->hi))
        return K_STACKS;
    return K_ALLOC;
}

/* res resident bytes of bytes mapped to a kept range's owner g. */
static void give_to(struct snap *s, const struct tp_vma *v, int g, uint64_t res, uint64_t bytes)
{
    if (g == TP_MAPS_OWN) {
        add(s, K_TPROF, res, bytes);
    } else if (g >= 0 && (size_t)g < s->naggs) {
        s->agg_res[g] += res;
        add(s, v->path[0] == '/' ? K_FILE : K_ANON, res, bytes);
    }
}

/* Resident bytes of the parts of v no kept range in [first, end) covers (mincore). */
static uint64_t gaps_resident(const struct tp_vma *v, size_t first, size_t end)
{
    uint64_t res = 0;
    uintptr_t at = v->lo;
    for (size_t i = first; i <= end; i++) {
        uintptr_t to = i < end && maps[i].lo > v->lo ? maps[i].lo : i < end ? v->lo : v->hi;
        if (to > at)
            res += tp_pages_resident((void *)at, to - at);
        if (i < end && maps[i].hi > at)
            at = maps[i].hi < v->hi ? maps[i].hi : v->hi;
    }
    return res;
}

/* Give the kept ranges within v (the program's mappings, tprof's) their part of its resident
 * memory; returns what is left for the area's own kind, its unclaimed bytes in *rest_len. One
 * owner over all of the area takes all of it, with no page asked about; else anonymous memory is
 * split by mincore, asked of the smaller side (tprof's tables reserve gigabytes and touch little),
 * a file's in proportion to size. */
static uint64_t claim(struct snap *s, const struct tp_vma *v, uint64_t *rest_len)
{
    uint64_t len = v->hi - v->lo, covered = 0, rest = v->rss;
    size_t first = map_after(v->lo), end = first;
    int same = 1;
    for (; end < nmaps && maps[end].lo < v->hi; end++) {
        uintptr_t a = maps[end].lo > v->lo ? maps[end].lo : v->lo;
        uintptr_t b = maps[end].hi < v->hi ? maps[end].hi : v->hi;
        covered += b - a;
        same = same && maps[end].agg == maps[first].agg;
    }
    *rest_len = len - covered;
    if (first == end)
        return rest;
    int anon = v->path[0] != '/';
    if (same && (covered == len || (anon && len - covered < covered))) {
        uint64_t left = covered == len ? 0 : gaps_resident(v, first, end);
        left = left < rest ? left : rest;
        give_to(s, v, maps[first].agg, rest - left, covered);
        return left;
    }
    for (size_t i = first; i < end; i++) {
        uintptr_t a = maps[i].lo > v->lo ? maps[i].lo : v->lo;
        uintptr_t b = maps[i].hi < v->hi ? maps[i].hi : v->hi;
        uint64_t res = anon ? tp_pages_resident((void *)a, b - a)
                            : (uint64_t)((double)v->rss * (double)(b - a) / (double)len);
        res = res < rest ? res : rest;
        rest -= res;
        give_to(s, v, maps[i].agg, res, b - a);
    }
    return rest;
}

static void one_area(void *ctx, const struct tp_vma *v)
{
    struct walk *w = ctx;
    struct snap *s = w->s;
    s->rss += v->rss;
    s->pss += v->pss;
    uint64_t rest_len, rest = claim(s, v, &rest_len);
    int k = area_kind(w, v);
    if (rest || rest_len) {
        if (k == K_FILE)
            add_file(s, v->path, rest, rest_len);
        if (k == K_ALLOC) {
            s->pool += rest;
            s->pool_mapped += rest_len;
        } else {
            add(s, k, rest, rest_len);
        }
        if (k == K_STACKS)
            s->stack_areas++;
    }
    if (k == K_LIBS && v->path[0] == '/' && v->offset == 0)
        s->lib_paths++;
    w->prev_kind = k;
    w->prev_hi = v->hi;
}

/* ---- a reading ---- */

/* Read smaps into s; heap_extra: bytes still live that the heap's figure no longer counts (a
 * block being freed); ask: whether mallinfo2 may be asked (not from a signal handler's call). */
static int take_reading(struct snap *s, uint64_t heap_extra, int ask)
{
    find_own_path();
    memset(s, 0, sizeof *s);
    s->ns = tp_now_ns();
    s->naggs = tp_maps_aggs(aggs, TP_MAPS_MAX_AGGS);
    for (size_t i = 0; i < s->naggs; i++)
        s->agg_live[i] = aggs[i].live;
    nmaps = tp_maps_copy(maps, MAX_MAPS);
    nstacks = tp_maps_stacks(stacks, MAX_STACKS);
    struct walk w = {s, -1, 0};
    if (tp_smaps_read(one_area, &w) != 0)
        return -1;
    uint64_t floor;
    s->heap_live = tp_heap_live(&floor) + heap_extra;
    if (ask) {
        struct mallinfo2 mi = mallinfo2();
        retained = mi.fordblks;
    }
    s->heap_res = s->heap_live < s->pool ? s->heap_live : s->pool;
    uint64_t alloc = s->pool - s->heap_res;
    s->retained = retained < alloc ? retained : alloc;
    s->overhead = alloc - s->retained;
    s->res[K_HEAP] = s->heap_res;
    s->mapped[K_HEAP] = s->heap_live;
    s->res[K_ALLOC] = alloc;
    s->mapped[K_ALLOC] = s->pool_mapped > s->heap_live ? s->pool_mapped - s->heap_live : 0;
    reads++;
    return 0;
}

/* Keep the reading in work: as the ledger when its RSS is the highest, and as a point. */
static void keep(void)
{
    if (!have_peak || work.rss >= peak.rss) {
        peak = work;
        have_peak = 1;
    }
    if (nseries == SERIES_CAP) { /* the higher of each two; points half as often from now */
        size_t out = 0;
        for (size_t i = 0; i + 1 < nseries; i += 2)
            series[out++] = series[i + 1].rss > series[i].rss ? series[i + 1] : series[i];
        nseries = out;
        series_gap *= 2;
    }
    struct point *p = &series[nseries++];
    p->ns = work.ns;
    p->rss = work.rss;
    memcpy(p->res, work.res, sizeof p->res);
    series_due = work.ns + series_gap;
}

/* May a reading be made now? For a higher RSS, 0.5% of the run so far after a first 20 ms; for a
 * point of the memory over time alone, 0.25% and nothing first: a short run's first milliseconds
 * are kept for its peak. */
static int affordable(uint64_t now, int higher)
{
    uint64_t ran = now > tp_start_ns ? now - tp_start_ns : 0;
    return higher ? spent <= FREE_SPEND_NS + ran / 200 : spent <= ran / 400;
}

/* Read if RSS is a new high or (series_ok: an op's or step's boundary, else a release) a point is
 * due; under busy. */
static void maybe_read(uint64_t now, uint64_t heap_extra, int ask, int series_ok)
{
    /* higher than the best reading by a 256th: RSS that grows a page at a time is read again
     * only when it has grown enough to matter. Before memory is given back (release), higher by
     * a 16th: read whatever the budget says, as the moment before a peak ends is what the
     * ledger is for; each such reading needs RSS 6% above the last, so there are at most a
     * dozen for each doubling of the RSS, however long the run (on a loaded machine a reading
     * costs more, and the budget alone dropped the peak of a short run). statm's reading,
     * 30 us, is made at most every 10 ms even past the budget. */
    uint64_t rss = tp_statm_rss(), best = have_peak ? peak.rss : 0;
    int much = !series_ok && rss > best + best / 16;
    int higher = much || (rss > best + best / 256 && affordable(now, 1));
    int point = series_ok && now >= series_due && affordable(now, 0);
    if ((higher || point) && take_reading(&work, heap_extra, ask) == 0)
        keep();
    spent += tp_now_ns() - now; /* statm's reading too: all of it is tprof's time */
}

void tp_ledger_poll(uint64_t ticks)
{
    if (!gap_ticks) {
        uint64_t per = tp_ticks_to_ns(1ull << 30); /* ns in 2^30 ticks */
        gap_ticks = per ? (uint64_t)((double)TICK_GAP_NS * (double)(1ull << 30) / (double)per) : 1;
        gap_ticks = gap_ticks ? gap_ticks : 1;
    }
    atomic_store_explicit(&tp_ledger_due, ticks + gap_ticks, memory_order_relaxed);
    if (!tp_running() || atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return;
    struct tp_own g = tp_own_begin();
    maybe_read(tp_now_ns(), 0, 1, 1);
    tp_own_end(g);
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

void tp_ledger_release(uint64_t bytes, int from_free)
{
    if (!tp_running() || atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return;
    uint64_t now = tp_now_ns();
    /* munmap and madvise may come from a signal handler: there no reading is the first, which
     * asks for libtprof.so's path (dladdr takes the loader's lock), before tp_ledger_start */
    if (now < release_due || (!from_free && !own_known)) {
        atomic_flag_clear_explicit(&busy, memory_order_release);
        return;
    }
    release_due = now + RELEASE_GAP_NS;
    struct tp_own g = tp_own_begin();
    maybe_read(now, bytes, from_free, 0);
    tp_own_end(g);
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

void tp_ledger_fork_child(void)
{
    /* the child's memory is its own from here: its ledger starts again */
    atomic_flag_clear(&busy);
    have_peak = 0;
    nseries = 0;
    series_gap = SERIES_GAP_NS;
    series_due = release_due = spent = reads = 0;
    atomic_store(&tp_ledger_due, 0);
}

/* ---- into the report ---- */

static void prot_text(int prot, char *out)
{
    out[0] = prot & PROT_READ ? 'r' : '-';
    out[1] = prot & PROT_WRITE ? 'w' : '-';
    out[2] = prot & PROT_EXEC ? 'x' : '-';
    out[3] = 0;
}

static char *flags_text(int flags)
{
    char s[96];
    snprintf(s, sizeof s, "%s%s%s%s%s", flags & MAP_SHARED ? "shared" : "private",
             flags & MAP_FIXED ? " fixed" : "", flags & MAP_NORESERVE ? " noreserve" : "",
             flags & MAP_STACK ? " stack" : "", flags & MAP_HUGETLB ? " hugetlb" : "");
    return strdup(s);
}

static struct tp_map_agg aggs_now[TP_MAPS_MAX_AGGS];
static int by_resident_desc(const void *a, const void *b)
{
    const struct tp_mapping *x = a, *y = b;
    if (x->resident_at_peak_bytes != y->resident_at_peak_bytes)
        return x->resident_at_peak_bytes > y->resident_at_peak_bytes ? -1 : 1;
    return x->mapped_bytes > y->mapped_bytes ? -1 : x->mapped_bytes < y->mapped_bytes;
}

/* memory.mappings: every call site and file, most resident at the peak first; in order[i] the
 * place of aggs_now[i]. */
static void mappings(struct tp_memory *m, size_t n, size_t *order,
                     void (*frames)(uint32_t site, struct tp_mapping *out))
{
    m->mappings = n ? calloc(n, sizeof *m->mappings) : NULL;
    if (!m->mappings)
        return;
    for (size_t i = 0; i < n; i++) {
        const struct tp_map_agg *g = &aggs_now[i];
        struct tp_mapping *o = &m->mappings[i];
        char prot[4];
        prot_text(g->prot, prot);
        o->kind = strdup(g->file ? "file" : "anonymous");
        o->file = g->file ? strdup(g->path) : NULL;
        o->prot = strdup(prot);
        o->flags = flags_text(g->flags);
        o->offset = g->offset;
        o->maps = g->maps;
        o->unmaps = g->unmaps;
        o->mapped_bytes = g->mapped;
        o->live_at_exit_bytes = g->live;
        o->advised_bytes = g->advised;
        if (have_peak && i < peak.naggs) {
            o->live_at_peak_bytes = peak.agg_live[i];
            o->resident_at_peak_bytes = peak.agg_res[i];
        }
        o->nframes = i; /* its place before sorting, until the frames are made */
    }
    qsort(m->mappings, n, sizeof *m->mappings, by_resident_desc);
    for (size_t i = 0; i < n; i++) {
        size_t was = m->mappings[i].nframes;
        order[was] = i;
        m->mappings[i].nframes = 0;
        frames(aggs_now[was].site, &m->mappings[i]);
    }
    m->nmappings = n;
}

static void row(struct tp_ledger_row *rows, size_t *n, const char *kind, const char *name,
                uint64_t res, uint64_t mapped, int64_t mapping)
{
    if (!res && !mapped && strcmp(kind, "unexplained"))
        return;
    struct tp_ledger_row *r = &rows[(*n)++];
    r->kind = strdup(kind);
    r->name = name ? strdup(name) : NULL;
    r->resident_bytes = res;
    r->mapped_bytes = mapped;
    r->mapping = mapping;
}

static int row_desc(const void *a, const void *b)
{
    const struct tp_ledger_row *x = a, *y = b;
    return x->resident_bytes > y->resident_bytes ? -1 : x->resident_bytes < y->resident_bytes;
}

/* memory.ledger from the highest reading; the rows add up to peak_rss. */
static void ledger_rows(struct tp_memory *m, const size_t *order, size_t naggs, uint64_t peak_rss)
{
    const struct snap *s = &peak;
    size_t cap = 16 + TP_MAPS_MAX_AGGS + MAX_FILES, n = 0;
    struct tp_ledger_row *rows = calloc(cap, sizeof *rows);
    if (!rows)
        return;
    char name[64];
    row(rows, &n, "heap", "in use", s->heap_res, s->heap_live, -1);
    row(rows, &n, "allocator", "freed, kept by the allocator", s->retained, s->retained, -1);
    row(rows, &n, "allocator", "overhead", s->overhead,
        s->mapped[K_ALLOC] > s->retained ? s->mapped[K_ALLOC] - s->retained : 0, -1);
    for (size_t i = 0; i < s->naggs && i < naggs; i++)
        row(rows, &n, aggs_now[i].file ? "file" : "anonymous",
            aggs_now[i].file ? aggs_now[i].path : NULL, s->agg_res[i], s->agg_live[i],
            (int64_t)order[i]);
    for (size_t i = 0; i < s->nfiles; i++)
        row(rows, &n, "file", s->file[i], s->file_res[i], s->file_mapped[i], -1);
    row(rows, &n, "file", "other files", s->more_files_res, s->more_files_mapped, -1);
    snprintf(name, sizeof name, "%llu stack%s", (unsigned long long)s->stack_areas,
             s->stack_areas == 1 ? "" : "s");
    row(rows, &n, "stacks", name, s->res[K_STACKS], s->mapped[K_STACKS], -1);
    snprintf(name, sizeof name, "code and data of %llu file%s", (unsigned long long)s->lib_paths,
             s->lib_paths == 1 ? "" : "s");
    row(rows, &n, "libraries", name, s->res[K_LIBS], s->mapped[K_LIBS], -1);
    row(rows, &n, "tprof", "tprof's own", s->res[K_TPROF], s->mapped[K_TPROF], -1);
    row(rows, &n, "other", "the kernel's areas", s->res[K_OTHER], s->mapped[K_OTHER], -1);
    qsort(rows, n, sizeof *rows, row_desc);
    row(rows, &n, "unexplained", "between readings", peak_rss > s->rss ? peak_rss - s->rss : 0, 0,
        -1);
    m->ledger = rows;
    m->nledger = n;
}

static void series_out(struct tp_memory *m)
{
    m->ledger_series = nseries ? calloc(nseries, sizeof *m->ledger_series) : NULL;
    for (size_t i = 0; m->ledger_series && i < nseries; i++) {
        const struct point *p = &series[i];
        struct tp_ledger_point *o = &m->ledger_series[m->nledger_series++];
        o->ns = p->ns > tp_start_ns ? p->ns - tp_start_ns : 0;
        o->rss_bytes = p->rss;
        o->heap_bytes = p->res[K_HEAP];
        o->allocator_bytes = p->res[K_ALLOC];
        o->file_bytes = p->res[K_FILE];
        o->anonymous_bytes = p->res[K_ANON];
        o->stacks_bytes = p->res[K_STACKS];
        o->libraries_bytes = p->res[K_LIBS];
        o->tprof_bytes = p->res[K_TPROF];
        o->other_bytes = p->res[K_OTHER];
    }
}

void tp_ledger_collect(struct tp_report *r, void (*frames)(uint32_t site, struct tp_mapping *out))
{
    struct tp_memory *m = &r->memory;
    /* A reading under way on another thread ends within milliseconds; one this thread was making
     * (a signal handler that interrupted it ends the process) never does: after 2 s the report
     * goes without a last reading, leaving the flag as it is. */
    int mine = 0;
    for (int i = 0; i < 20000 && !mine; i++) {
        mine = !atomic_flag_test_and_set_explicit(&busy, memory_order_acquire);
        if (!mine)
            nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    uint64_t t0 = tp_now_ns();
    if (mine && take_reading(&work, 0, 1) == 0) {
        keep();
        spent += tp_now_ns() - t0;
    }
    if (have_peak) {
        size_t naggs = tp_maps_aggs(aggs_now, TP_MAPS_MAX_AGGS), order[TP_MAPS_MAX_AGGS];
        m->ledger_method = strdup("smaps");
        m->peak_rss_ns = peak.ns > tp_start_ns ? peak.ns - tp_start_ns : 0;
        m->ledger_rss_bytes = peak.rss;
        m->ledger_pss_bytes = peak.pss;
        m->ledger_reads = reads;
        m->ledger_ns = spent;
        if (m->peak_rss_bytes < peak.rss) /* the high-water mark is counted apart from smaps */
            m->peak_rss_bytes = peak.rss;
        mappings(m, naggs, order, frames);
        ledger_rows(m, order, naggs, m->peak_rss_bytes);
        series_out(m);
    }
    uint64_t lost = tp_maps_lost();
    if (lost)
        tp_report_note(r,
                       "memory ledger: %llu of the program's mmap calls were not kept (the "
                       "tables were full or busy); their memory is counted as the allocator's",
                       (unsigned long long)lost);
    if (mine)
        atomic_flag_clear_explicit(&busy, memory_order_release);
}
