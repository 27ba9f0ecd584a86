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
 * (track/symindex.h), kept for the life of the symboliser.
 *
 * Separate debug files are looked for on this machine only, unless TPROF_DEBUGINFOD=1. libdwfl's
 * standard search (dwfl_standard_find_debuginfo) ends by asking every server in DEBUGINFOD_URLS
 * (set by default on Debian, Ubuntu and Fedora) for each module it found nothing for: a
 * download, or a wait for a server that does not answer, at every exit of every process. With
 * TPROF_DEBUGINFOD=1 those servers are asked, through libdebuginfod loaded then into the
 * program's own namespace: in elfutils' namespace its TLS stack (OpenSSL, through libcurl and
 * libssh2) crashes, its pthread keys colliding with the first libc's. */
#include "track/symbolize.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "track/dwlib.h"
#include "track/runtime.h"
#include "track/modmap.h"
#include "track/syminline.h"
#include "track/symindex.h"
#include "track/symtab.h"
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
    struct tp_sym_stats stats;
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

/* ---- separate debug files, from this machine only ---- */

/* The CRC-32 a .gnu_debuglink section records for its debug file (that of zlib and gzip). */
static uint32_t file_crc32(int fd, int *ok)
{
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    unsigned char buf[16384];
    uint32_t crc = 0xFFFFFFFFu;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            crc = table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
    *ok = n == 0;
    return crc ^ 0xFFFFFFFFu;
}

/* fd when path is the debug file sought: another file than the module's own, with the CRC the
 * debuglink records (0: an alternate file, which carries no CRC). Else -1, fd closed. */
static int check_candidate(const char *path, const struct stat *main_st, uint32_t crc)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    int ok = 1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (main_st && st.st_dev == main_st->st_dev && st.st_ino == main_st->st_ino) ||
        (crc && (file_crc32(fd, &ok) != crc || !ok)) || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- debuginfod, when asked for ---- */

typedef struct debuginfod_client debuginfod_client;
static struct {
    int tried;
    debuginfod_client *client;
    debuginfod_client *(*begin)(void);
    int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
    void (*end)(debuginfod_client *);
} dbgd;

/* The debug file of mod from the DEBUGINFOD_URLS servers, by its build-id; -1 without one.
 * libdebuginfod is loaded on the first call, and stays (libcurl's libraries are not made to be
 * unloaded). Its own variables apply: DEBUGINFOD_TIMEOUT, DEBUGINFOD_CACHE_PATH... */
static int ask_debuginfod(Dwfl_Module *mod, char **debuginfo_file_name)
{
    const unsigned char *id = NULL;
    GElf_Addr at;
    int n = tp_dw.dwfl_module_build_id(mod, &id, &at);
    if (n <= 0)
        return -1;
    if (!dbgd.tried) {
        dbgd.tried = 1;
        void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            dbgd.begin = (debuginfod_client * (*)(void)) dlsym(h, "debuginfod_begin");
            dbgd.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int,
                                           char **))dlsym(h, "debuginfod_find_debuginfo");
            dbgd.end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
            if (dbgd.begin && dbgd.find_debuginfo && dbgd.end)
                dbgd.client = dbgd.begin();
        } else {
            tp_warn("TPROF_DEBUGINFOD=1: libdebuginfod.so.1: %s; no server asked", dlerror());
        }
    }
    if (!dbgd.client)
        return -1;
    char *path = NULL;
    int fd = dbgd.find_debuginfo(dbgd.client, id, n, &path);
    if (fd < 0) {
        free(path);
        return -1;
    }
    /* the name is freed by libdwfl, with its own libc */
    char *name = NULL;
    if (path) {
        size_t len = strlen(path) + 1;
        name = tp_dw.malloc(len);
        if (name)
            memcpy(name, path, len);
        free(path);
    }
    *debuginfo_file_name = name;
    return fd;
}

/* Dwfl_Callbacks.find_debuginfo: the build-id directory under /usr/lib/debug (libdwfl's own
 * search, which never asks a server), then the .gnu_debuglink name beside the file, in its .debug
 * directory, and under /usr/lib/debug: what dwfl_standard_find_debuginfo tries before debuginfod.
 * Then, with TPROF_DEBUGINFOD=1 only, the servers (not for a dwz alternate file, asked for with
 * its name and no CRC: it has a build-id of its own, which only libdwfl knows). The name returned
 * is freed by libdwfl, so it comes from libdwfl's own malloc. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    int fd = tp_dw.dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                                debuglink_file, debuglink_crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    if (!debuglink_file || !*debuglink_file)
        return tp_cfg.debuginfod ? ask_debuginfod(mod, debuginfo_file_name) : -1;
    struct stat main_st;
    int have_main = file_name && stat(file_name, &main_st) == 0;
    char dir[4096], path[4096 + 64];
    dir[0] = 0;
    if (file_name && file_name[0] == '/') {
        const char *slash = strrchr(file_name, '/');
        size_t n = (size_t)(slash - file_name);
        if (n < sizeof dir) {
            memcpy(dir, file_name, n);
            dir[n] = 0;
        }
    }
    for (int i = 0; i < 3 && fd < 0; i++) {
        int w;
        if (debuglink_file[0] == '/') {
            if (i > 0)
                break;
            w = snprintf(path, sizeof path, "%s", debuglink_file);
        } else if (!dir[0]) {
            break; /* a module without a directory: nowhere to look */
        } else if (i == 0) {
            w = snprintf(path, sizeof path, "%s/%s", dir, debuglink_file);
        } else if (i == 1) {
            w = snprintf(path, sizeof path, "%s/.debug/%s", dir, debuglink_file);
        } else {
            w = snprintf(path, sizeof path, "/usr/lib/debug%s/%s", dir, debuglink_file);
        }
        if (w < 0 || (size_t)w >= sizeof path)
            continue;
        fd = check_candidate(path, have_main ? &main_st : NULL, debuglink_crc);
    }
    if (fd >= 0) {
        size_t len = strlen(path) + 1;
        char *name = tp_dw.malloc(len);
        if (name)
            memcpy(name, path, len);
        *debuginfo_file_name = name;
    } else if (tp_cfg.debuginfod && debuglink_crc != 0) {
        fd = ask_debuginfod(mod, debuginfo_file_name);
    }
    return fd;
}

static _Atomic uint64_t opened;

uint64_t tp_sym_opened(void)
{
    return atomic_load(&opened);
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
    atomic_fetch_add(&opened, 1);
    if (!tp_dw_ready())
        return s; /* no elfutils: frames keep their module offsets only */
    s->cb.find_elf = tp_dw.dwfl_linux_proc_find_elf;
    s->cb.find_debuginfo = find_debuginfo;
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
    s->stats.modules_indexed++;
    s->stats.symbols_indexed += x->n;
    HASH_ADD_PTR(s->mods, mod, x);
    return x;
}

/* The real function that holds pc (out: function, module, offset) and the line table's line at
 * pc (*file, *line; none for system libraries). 0 when no module holds pc. */
static Dwfl_Module *describe(struct tp_symbolizer *s, uintptr_t pc, uintptr_t raw, int brief,
                             struct tp_frame *out, char **file, int *line)
{
    memset(out, 0, sizeof *out);
    *file = NULL;
    *line = 0;
    out->offset = raw;
    if (!s->dwfl)
        return NULL;
    Dwfl_Module *m = tp_dw.dwfl_addrmodule(s->dwfl, pc);
    if (!m)
        return NULL;
    Dwarf_Addr start = 0;
    const char *mainfile = NULL;
    const char *modname =
        tp_dw.dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, &mainfile, NULL);
    out->module = dup_or_null(mainfile ? mainfile : modname);
    out->offset = raw - start;
    const struct modindex *x = index_of(s, m);
    const struct tp_sym *sym = x ? tp_symindex_find(x->v, x->n, pc) : NULL;
    s->stats.lookups++;
    if (sym)
        out->function = function_name(sym->name);
    if (brief)
        return NULL;
    /* File:line of system libraries costs a decompression of their DWARF at exit (tens of
     * milliseconds for libc) and is rarely what a user looks for: their frames keep the
     * function name only. */
    const char *path = out->module;
    if (path && (!strncmp(path, "/lib/", 5) || !strncmp(path, "/usr/lib/", 9) ||
                 !strncmp(path, "/lib64/", 7)))
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
    Dwfl_Module *m = describe(s, pc, raw, 0, &real, &file, &line);
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

void tp_sym_brief(struct tp_symbolizer *s, uintptr_t pc, int is_ret, struct tp_frame *out)
{
    memset(out, 0, sizeof *out);
    out->offset = pc;
    if (!s)
        return;
    struct cached *c = NULL;
    HASH_FIND(hh, s->cache, &pc, sizeof pc, c);
    if (c) { /* the whole description is known: its real function */
        const struct tp_frame *real = &c->f[c->n - 1];
        out->function = dup_or_null(real->function);
        out->module = dup_or_null(real->module);
        out->offset = real->offset;
        return;
    }
    char *file = NULL;
    int line = 0;
    describe(s, is_ret && pc ? pc - 1 : pc, pc, 1, out, &file, &line);
}

void tp_sym_get_stats(const struct tp_symbolizer *s, struct tp_sym_stats *out)
{
    memset(out, 0, sizeof *out);
    if (s)
        *out = s->stats;
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
    tp_free(s->debuginfo_path);
    tp_free(s);
}
