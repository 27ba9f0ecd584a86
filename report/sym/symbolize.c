/* Naming a record's frames with libdwfl, in the tprof program (see report/sym/sym.h).
 *
 * A frame of a record is a module's path and an offset from its load bias: the process that
 * recorded it has ended, or is waiting for this, and nothing here reads its memory or maps. Each
 * module file is reported to a Dwfl of its own at base 0, where an address is the file's own
 * virtual address, i.e. that offset: the same for every process that loaded the file wherever,
 * and for a library unloaded (dlclose) before the end, read from its file like any other.
 *
 * dwfl reads each module's .symtab when present (so static functions are named, not only
 * exports as with dladdr), falls back to .dynsym, and finds file:line in DWARF, including
 * separate debug files through build-id and .gnu_debuglink (report/sym/symdebug.c). Results are
 * cached per module and offset: the same return address appears in many call sites.
 *
 * Function names do not come from dwfl_module_addrinfo, which scans the whole symbol table for
 * every address (gcc's cc1 has 28,902 symbols: seconds for each compilation's report), but from
 * a table of the module's function symbols read once through dwfl and searched by address
 * (common/names/names.h), kept for the life of the symboliser. */
#include "report/sym/sym.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/names/names.h"
#include "common/out/out.h"
#include "common/names/names.h"
#include "report/sym/symdebug.h"
#include "report/sym/syminline.h"

/* One module file: its Dwfl, and its function symbols sorted (names are dwfl's own). */
struct mod {
    UT_hash_handle hh;
    char *path;  /* as the record names it (the loader's name) */
    char *shown; /* the file itself, links resolved, as the process's maps showed it */
    Dwfl *dwfl;
    Dwfl_Module *m; /* NULL: the file cannot be read (gone, not ELF, the vDSO) */
    Dwarf_Addr start;
    struct tp_sym *v;
    size_t n;
};

struct key {
    const struct mod *mod;
    uint64_t offset;
};

struct cached {
    UT_hash_handle hh;
    struct key k;
    struct tp_frame *f; /* n source frames, innermost first */
    int n;
};

struct tp_symbolizer {
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    struct mod *mods;
    struct cached *cache;
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* C++ names read better demangled; symbol versions go (__libc_start_main@@GLIBC_2.34). */
static char *function_name(const char *sym)
{
    if (!sym)
        return NULL;
    const char *at = strchr(sym, '@');
    size_t n = at ? (size_t)(at - sym) : strlen(sym);
    char *plain = strndup(sym, n);
    char *d = plain ? tp_demangle(plain, 1) : NULL;
    if (d) {
        free(plain);
        return d;
    }
    return plain;
}

struct tp_symbolizer *tp_sym_open(int debuginfod)
{
    struct tp_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        free(s);
        return NULL;
    }
    tp_sym_debuginfod = debuginfod;
    s->cb.find_elf = dwfl_build_id_find_elf;
    s->cb.find_debuginfo = tp_sym_find_debuginfo;
    s->cb.debuginfo_path = &s->debuginfo_path;
    return s;
}

static int is_function(const GElf_Sym *s)
{
    int t = GELF_ST_TYPE(s->st_info);
    return (t == STT_FUNC || t == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF && s->st_value != 0;
}

/* The sorted function symbols of m. */
static void index_module(struct mod *x)
{
    int count = dwfl_module_getsymtab(x->m);
    x->v = count > 1 ? malloc((size_t)count * sizeof *x->v) : NULL;
    for (int i = 1; x->v && i < count; i++) { /* entry 0 is the null symbol */
        GElf_Sym sym;
        GElf_Addr addr = 0;
        const char *name = dwfl_module_getsym_info(x->m, i, &sym, &addr, NULL, NULL, NULL);
        if (!name || !*name || !is_function(&sym))
            continue;
        struct tp_sym *e = &x->v[x->n++];
        e->start = (uintptr_t)addr;
        e->size = sym.st_size;
        e->name = name;
        e->order = (uint32_t)i;
        e->rank = (uint8_t)tp_sym_rank(GELF_ST_BIND(sym.st_info));
    }
    struct tp_sym *scratch = x->n ? malloc(x->n * sizeof *scratch) : NULL;
    tp_symindex_finish(x->v, &x->n, scratch);
    free(scratch);
}

/* The module file at path, read on its first frame. */
static struct mod *module(struct tp_symbolizer *s, const char *path)
{
    struct mod *x = NULL;
    HASH_FIND_STR(s->mods, path, x);
    if (x)
        return x;
    x = calloc(1, sizeof *x);
    if (!x || !(x->path = strdup(path))) {
        free(x);
        return NULL;
    }
    x->shown = realpath(path, NULL);
    /* a pseudo-file ([vdso]) or a file gone since: no Dwfl, frames keep module and offset */
    if (path[0] == '/' && (x->dwfl = dwfl_begin(&s->cb))) {
        dwfl_report_begin(x->dwfl);
        x->m = dwfl_report_elf(x->dwfl, path, path, -1, 0, false);
        if (dwfl_report_end(x->dwfl, NULL, NULL) != 0)
            x->m = NULL;
    }
    if (x->m) {
        dwfl_module_info(x->m, NULL, &x->start, NULL, NULL, NULL, NULL, NULL);
        index_module(x);
    }
    HASH_ADD_KEYPTR(hh, s->mods, x->path, strlen(x->path), x);
    return x;
}

/* The real function that holds address at of module x (out: function, module, offset, the
 * latter from raw) and the line table's line there (*file, *line; none for system libraries).
 * NULL when the module cannot be read. */
static Dwfl_Module *describe(struct mod *x, Dwarf_Addr at, uint64_t raw, struct tp_frame *out,
                             char **file, int *line)
{
    memset(out, 0, sizeof *out);
    *file = NULL;
    *line = 0;
    out->module = dup_or_null(x->shown ? x->shown : x->path);
    out->offset = raw;
    if (!x->m)
        return NULL;
    out->offset = raw - x->start;
    const struct tp_sym *sym = x->v ? tp_symindex_find(x->v, x->n, (uintptr_t)at) : NULL;
    if (sym)
        out->function = function_name(sym->name);
    /* File:line of system libraries costs a decompression of their DWARF (tens of milliseconds
     * for libc) and is rarely what a user looks for: their frames keep the function name only. */
    if (tp_in_system_dir(out->module, 0))
        return NULL;
    Dwfl_Line *l = dwfl_module_getsrc(x->m, at);
    if (l) {
        const char *f = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
        if (f)
            *file = dup_or_null(f);
        else
            *line = 0;
    }
    return x->m;
}

/* The source frames at address at of x into f[0..max), innermost first: the functions inlined
 * there, then the real function, which calls the outermost of them from its own line. */
static int expand(struct mod *x, Dwarf_Addr at, uint64_t raw, struct tp_frame *f, int max)
{
    struct tp_frame real;
    char *file = NULL, *call_file = NULL;
    int line = 0, call_line = 0;
    Dwfl_Module *m = describe(x, at, raw, &real, &file, &line);
    int k = m ? tp_sym_inlines(m, at, f, max - 1, &call_file, &call_line) : 0;
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
    free(f->function);
    free(f->file);
    free(f->module);
}

int tp_sym_frames(struct tp_symbolizer *s, const char *path, uint64_t offset, int is_ret,
                  struct tp_frame *out, int max)
{
    if (max <= 0)
        return 0;
    memset(out, 0, sizeof *out);
    out->offset = offset;
    out->module = dup_or_null(path);
    struct mod *x = s && path ? module(s, path) : NULL;
    if (!x)
        return 1;
    free(out->module);
    out->module = NULL;
    struct cached *c = NULL;
    struct key k;
    memset(&k, 0, sizeof k);
    k.mod = x;
    k.offset = offset;
    HASH_FIND(hh, s->cache, &k, sizeof k, c);
    if (!c) {
        struct tp_frame f[TP_SYM_MAX_FRAMES];
        c = calloc(1, sizeof *c);
        if (!c)
            return 0;
        c->k = k;
        /* A return address points after the call; the one before it is inside the calling line.
         * The offset shown is that of the return address, as perf and heaptrack show it. */
        c->n = expand(x, is_ret && offset ? offset - 1 : offset, offset, f, TP_SYM_MAX_FRAMES);
        c->f = calloc((size_t)c->n, sizeof *c->f);
        if (!c->f) {
            for (int i = 0; i < c->n; i++)
                free_frame(&f[i]);
            free(c);
            return 0;
        }
        memcpy(c->f, f, sizeof *f * (size_t)c->n);
        HASH_ADD(hh, s->cache, k, sizeof c->k, c);
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
    struct cached *c, *ct;
    HASH_ITER(hh, s->cache, c, ct)
    {
        HASH_DEL(s->cache, c);
        for (int i = 0; i < c->n; i++)
            free_frame(&c->f[i]);
        free(c->f);
        free(c);
    }
    struct mod *x, *xt;
    HASH_ITER(hh, s->mods, x, xt)
    {
        HASH_DEL(s->mods, x);
        if (x->dwfl)
            dwfl_end(x->dwfl);
        free(x->v);
        free(x->shown);
        free(x->path);
        free(x);
    }
    free(s->debuginfo_path);
    free(s);
}
