/* Symbolisation with libdwfl over /proc/self/maps.
 *
 * dwfl reads each module's .symtab when present (so static functions are named, not only
 * exports as with dladdr), falls back to .dynsym, and finds file:line in DWARF, including
 * separate debug files through build-id and .gnu_debuglink. Results are cached per address:
 * the same return address appears in many call sites.
 *
 * Function names do not come from dwfl_module_addrinfo, which scans the whole symbol table for
 * every address (gcc's cc1 has 28,902 symbols: seconds at the exit of each compilation), but from
 * a table of the module's function symbols read once through dwfl and searched by address
 * (track/sym/symindex.h), kept for the life of the symboliser.
 *
 * Separate debug files are found by track/symdebug.c. */
#include "track/sym/sym.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/out/out.h"
#include "track/runtime.h"
#include "track/sym/symdebug.h"
#include "track/sym/syminline.h"
#include "track/sym/symindex.h"
#include "track/uthash_tp.h"

struct cached {
    uintptr_t pc;
    struct tp_frame *f; /* n source frames, innermost first */
    int n;
    UT_hash_handle hh;
};

/* A module's function symbols, sorted; the names are dwfl's own (alive until dwfl_end). */
struct modindex {
    Dwfl_Module *mod;
    struct tp_sym *v;
    size_t n;
    UT_hash_handle hh;
};

struct tp_symbolizer {
    Dwfl *dwfl;
    char *debuginfo_path;
    Dwfl_Callbacks cb;
    struct cached *cache;
    struct modindex *mods;
    /* One Dwfl per unloaded module a frame fell in that the main one could not take (something
     * else was mapped over part of its range since), made on its first frame; by departed index */
    Dwfl *gone[TP_MODMAP_MAX_DEPARTED];
};

static char *dup_or_null(const char *s)
{
    return s ? tp_strdup(s) : NULL;
}

/* C++ names read better demangled (symtab.c's demangler). */
static char *function_name(const char *sym)
{
    if (!sym)
        return NULL;
    const char *at = strchr(sym, '@'); /* drop symbol versions: __libc_start_main@@GLIBC_2.34 */
    size_t n = at ? (size_t)(at - sym) : strlen(sym);
    char *plain = tp_alloc(n + 1);
    if (!plain)
        return NULL;
    memcpy(plain, sym, n);
    plain[n] = 0;
    char *d = tp_symtab_demangled(plain);
    if (d) {
        tp_free(plain);
        return d;
    }
    return plain;
}

/* ---- the modules, from this process's maps ---- */

struct ranges {
    uintptr_t (*v)[2];
    size_t n, cap;
};

static int add_range(const struct tp_module *m, void *arg)
{
    struct ranges *r = arg;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        uintptr_t(*v)[2] = tp_realloc(r->v, cap * sizeof *v);
        if (!v)
            return 1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n][0] = m->lo;
    r->v[r->n][1] = m->hi;
    r->n++;
    return 0;
}

/* Does the maps line at p (its end at e) stay: no file, or a file mapped where a loaded module's
 * segments are? A file mapped anywhere else (the stack walker's read-only mapping of a whole
 * library, to read its unwind tables) would otherwise join that library's module: mapped below
 * it, it moves the module's start there, and every address in the library is then looked up
 * that far off (libstdc++'s operator new unnamed, at an offset past its end). */
static int keep_line(const char *p, const char *e, const struct ranges *r)
{
    const char *path = memchr(p, '/', (size_t)(e - p));
    if (!path)
        return 1;
    char *end;
    uintptr_t lo = (uintptr_t)strtoull(p, &end, 16);
    uintptr_t hi = *end == '-' ? (uintptr_t)strtoull(end + 1, NULL, 16) : lo;
    for (size_t i = 0; i < r->n; i++)
        if (lo < r->v[i][1] && hi > r->v[i][0])
            return 1;
    return 0;
}

/* /proc/<pid>/maps less the file mappings that are no loaded module's, into buf (*len bytes). */
static char *module_maps(size_t *len)
{
    char path[64], *buf = NULL;
    size_t n = 0, cap = 0;
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    for (;;) {
        if (cap - n < 4096) {
            char *b = tp_realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!b)
                break;
            buf = b;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    struct ranges r = {0};
    tp_modmap_each(add_range, &r);
    size_t w = 0;
    for (size_t at = 0; buf && at < n;) {
        char *nl = memchr(buf + at, '\n', n - at);
        size_t e = nl ? (size_t)(nl - buf) + 1 : n;
        if (keep_line(buf + at, buf + e, &r)) {
            memmove(buf + w, buf + at, e - at);
            w += e - at;
        }
        at = e;
    }
    tp_free(r.v);
    *len = w;
    return buf;
}

/* Report the modules of this process to s->dwfl: 0, or -1. */
static int report_modules(struct tp_symbolizer *s)
{
    size_t len = 0;
    char *maps = module_maps(&len);
    FILE *f = maps && len ? tp_dw.fmemopen(maps, len, "r") : NULL;
    int rc = f ? tp_dw.dwfl_linux_proc_maps_report(s->dwfl, f) : -1;
    if (f)
        tp_dw.fclose(f);
    tp_free(maps);
    return rc != 0 ? -1 : 0;
}

struct tp_symbolizer *tp_sym_open(void)
{
    struct tp_symbolizer *s = tp_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* elfutils is loaded on the first report that names call sites (preload/main.c) */
    if (!tp_dw_ready() && !tp_dw_load())
        return s; /* no elfutils: frames keep their module offsets only */
    s->cb.find_elf = tp_dw.dwfl_linux_proc_find_elf;
    s->cb.find_debuginfo = tp_sym_find_debuginfo;
    s->cb.debuginfo_path = &s->debuginfo_path;
    s->dwfl = tp_dw.dwfl_begin(&s->cb);
    if (s->dwfl) {
        tp_dw.dwfl_report_begin(s->dwfl);
        int bad = report_modules(s) != 0;
        /* Libraries unloaded with dlclose: report them where they were, unless something else
         * is mapped there now (dwfl refuses overlapping modules). */
        int n;
        const struct tp_departed *d = tp_modmap_departed(&n);
        for (int i = 0; !bad && i < n; i++) {
            if (tp_dw.dwfl_addrmodule(s->dwfl, d[i].lo) ||
                tp_dw.dwfl_addrmodule(s->dwfl, d[i].hi - 1))
                continue;
            tp_dw.dwfl_report_elf(s->dwfl, d[i].path, d[i].path, -1, d[i].base, false);
        }
        if (bad || tp_dw.dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
            tp_dw.dwfl_end(s->dwfl);
            s->dwfl = NULL;
        }
    }
    return s;
}

static int is_function(const GElf_Sym *s)
{
    int t = GELF_ST_TYPE(s->st_info);
    return (t == STT_FUNC || t == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF && s->st_value != 0;
}

/* The sorted function symbols of m, read on its first address. */
static const struct modindex *index_of(struct tp_symbolizer *s, Dwfl_Module *m)
{
    struct modindex *x = NULL;
    HASH_FIND_PTR(s->mods, &m, x);
    if (x)
        return x;
    x = tp_calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->mod = m;
    int count = tp_dw.dwfl_module_getsymtab(m);
    x->v = count > 1 ? tp_alloc((size_t)count * sizeof *x->v) : NULL;
    for (int i = 1; x->v && i < count; i++) { /* entry 0 is the null symbol */
        GElf_Sym sym;
        GElf_Addr addr = 0;
        const char *name = tp_dw.dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
        if (!name || !*name || !is_function(&sym))
            continue;
        struct tp_sym *e = &x->v[x->n++];
        e->start = (uintptr_t)addr;
        e->size = sym.st_size;
        e->name = name;
        e->order = (uint32_t)i;
        e->rank = (uint8_t)tp_sym_rank(GELF_ST_BIND(sym.st_info));
    }
    tp_symindex_finish(x->v, &x->n);
    HASH_ADD_PTR(s->mods, mod, x);
    return x;
}

/* The module that held pc when it was unloaded, in a Dwfl of its own. NULL without one. */
static Dwfl_Module *gone_module(struct tp_symbolizer *s, const struct tp_departed *d, uintptr_t pc)
{
    int n;
    const struct tp_departed *all = tp_modmap_departed(&n);
    size_t k = (size_t)(d - all);
    if (!s->dwfl || k >= TP_MODMAP_MAX_DEPARTED)
        return NULL;
    if (!s->gone[k]) {
        s->gone[k] = tp_dw.dwfl_begin(&s->cb);
        if (!s->gone[k])
            return NULL;
        tp_dw.dwfl_report_begin(s->gone[k]);
        tp_dw.dwfl_report_elf(s->gone[k], d->path, d->path, -1, d->base, false);
        tp_dw.dwfl_report_end(s->gone[k], NULL, NULL);
    }
    return tp_dw.dwfl_addrmodule(s->gone[k], pc);
}

/* pc in no loaded module: in one unloaded before exit (dlclose), named by its path and offset,
 * and by function when its file is still there to read. */
static void departed_frame(struct tp_symbolizer *s, uintptr_t pc, uintptr_t raw,
                           struct tp_frame *out)
{
    const struct tp_departed *d = tp_modmap_departed_at(pc);
    if (!d)
        return;
    out->module = dup_or_null(d->path);
    out->offset = raw - d->base;
    Dwfl_Module *m = gone_module(s, d, pc);
    const struct modindex *x = m ? index_of(s, m) : NULL;
    const struct tp_sym *sym = x ? tp_symindex_find(x->v, x->n, pc) : NULL;
    if (sym)
        out->function = function_name(sym->name);
}

/* Without elfutils (not installed, or not to be loaded from a signal handler): the module and
 * function from the loaded modules' own symbol tables, no line. */
static void symtab_only(struct tp_symbolizer *s, uintptr_t pc, uintptr_t raw, struct tp_frame *out)
{
    char path[4096], name[1024];
    uintptr_t bias, lo, hi;
    if (tp_symtab_module(pc, path, sizeof path, &bias, &lo, &hi) != 0) {
        departed_frame(s, pc, raw, out);
        return;
    }
    out->module = dup_or_null(path);
    out->offset = raw - bias;
    if (tp_symtab_lookup(pc, name, sizeof name, NULL) == 0)
        out->function = function_name(name);
}

/* The real function that holds pc (out: function, module, offset) and the line table's line at
 * pc (*file, *line; none for system libraries). 0 when no module holds pc. */
static Dwfl_Module *describe(struct tp_symbolizer *s, uintptr_t pc, uintptr_t raw,
                             struct tp_frame *out, char **file, int *line)
{
    memset(out, 0, sizeof *out);
    *file = NULL;
    *line = 0;
    out->offset = raw;
    if (!s->dwfl) {
        symtab_only(s, pc, raw, out);
        return NULL;
    }
    Dwfl_Module *m = tp_dw.dwfl_addrmodule(s->dwfl, pc);
    if (!m) {
        departed_frame(s, pc, raw, out);
        return NULL;
    }
    Dwarf_Addr start = 0;
    const char *mainfile = NULL;
    const char *modname =
        tp_dw.dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, &mainfile, NULL);
    out->module = dup_or_null(mainfile ? mainfile : modname);
    out->offset = raw - start;
    const struct modindex *x = index_of(s, m);
    const struct tp_sym *sym = x ? tp_symindex_find(x->v, x->n, pc) : NULL;
    if (sym)
        out->function = function_name(sym->name);
    /* File:line of system libraries costs a decompression of their DWARF at exit (tens of
     * milliseconds for libc) and is rarely what a user looks for: their frames keep the
     * function name only. */
    const char *path = out->module;
    if (tp_in_system_dir(path, 0))
        return NULL;
    Dwfl_Line *l = tp_dw.dwfl_module_getsrc(m, pc);
    if (l) {
        const char *f = tp_dw.dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
        if (f)
            *file = dup_or_null(f);
        else
            *line = 0;
    }
    return m;
}

/* The source frames pc stands for into f[0..max), innermost first: the functions inlined at pc,
 * then the real function, which calls the outermost of them from its own line. */
static int expand(struct tp_symbolizer *s, uintptr_t pc, uintptr_t raw, struct tp_frame *f, int max)
{
    struct tp_frame real;
    char *file = NULL, *call_file = NULL;
    int line = 0, call_line = 0;
    Dwfl_Module *m = describe(s, pc, raw, &real, &file, &line);
    int k = m ? tp_sym_inlines(m, pc, f, max - 1, &call_file, &call_line) : 0;
    if (k == 0) {
        real.file = file;
        real.line = line;
        f[0] = real;
        return 1;
    }
    f[0].file = file;
    f[0].line = line;
    for (int i = 0; i < k; i++) {
        f[i].module = dup_or_null(real.module);
        f[i].offset = real.offset;
    }
    real.file = call_file;
    real.line = call_line;
    f[k] = real;
    return k + 1;
}

static void copy_frame(const struct tp_frame *in, struct tp_frame *out)
{
    *out = *in;
    out->function = dup_or_null(in->function);
    out->file = dup_or_null(in->file);
    out->module = dup_or_null(in->module);
}

static void free_frame(struct tp_frame *f)
{
    tp_free(f->function);
    tp_free(f->file);
    tp_free(f->module);
}

int tp_sym_frames(struct tp_symbolizer *s, uintptr_t pc, int is_ret, struct tp_frame *out, int max)
{
    struct cached *c = NULL;
    if (max <= 0)
        return 0;
    memset(out, 0, sizeof *out);
    out->offset = pc;
    if (!s)
        return 1;
    HASH_FIND(hh, s->cache, &pc, sizeof pc, c);
    if (!c) {
        struct tp_frame f[TP_SYM_MAX_FRAMES];
        c = tp_calloc(1, sizeof *c);
        if (!c)
            return 1;
        c->pc = pc;
        /* A return address points after the call; pc-1 is inside the calling line. The
         * module offset shown is that of the return address, as perf and heaptrack show it. */
        c->n = expand(s, is_ret && pc ? pc - 1 : pc, pc, f, TP_SYM_MAX_FRAMES);
        c->f = tp_calloc((size_t)c->n, sizeof *c->f);
        if (!c->f) {
            for (int i = 0; i < c->n; i++)
                free_frame(&f[i]);
            tp_free(c);
            return 1;
        }
        memcpy(c->f, f, sizeof *f * (size_t)c->n);
        HASH_ADD(hh, s->cache, pc, sizeof c->pc, c);
    }
    /* Too little room: the real function first, the inlined ones from the innermost. */
    int n = c->n <= max ? c->n : max;
    for (int i = 0; i < n - 1; i++)
        copy_frame(&c->f[i], &out[i]);
    copy_frame(&c->f[c->n - 1], &out[n - 1]);
    return n;
}

void tp_sym_close(struct tp_symbolizer *s)
{
    if (!s)
        return;
    struct modindex *x, *xt;
    HASH_ITER(hh, s->mods, x, xt)
    {
        HASH_DEL(s->mods, x);
        tp_free(x->v);
        tp_free(x);
    }
    struct cached *c, *tmp;
    HASH_ITER(hh, s->cache, c, tmp)
    {
        HASH_DEL(s->cache, c);
        for (int i = 0; i < c->n; i++)
            free_frame(&c->f[i]);
        tp_free(c->f);
        tp_free(c);
    }
    if (s->dwfl)
        tp_dw.dwfl_end(s->dwfl);
    for (size_t k = 0; k < TP_MODMAP_MAX_DEPARTED; k++)
        if (s->gone[k])
            tp_dw.dwfl_end(s->gone[k]);
    tp_free(s->debuginfo_path);
    tp_free(s);
}
