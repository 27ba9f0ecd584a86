/* Symbolisation with libdwfl over /proc/self/maps.
 *
 * dwfl reads each module's .symtab when present (so static functions are named, not only
 * exports as with dladdr), falls back to .dynsym, and finds file:line in DWARF, including
 * separate debug files through build-id and .gnu_debuglink. Results are cached per address:
 * the same return address appears in many call sites. */
#include "symbolize.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modules.h"
#include "uthash_tp.h"

struct cached {
    uintptr_t pc;
    struct tp_frame f;
    UT_hash_handle hh;
};

struct tp_symbolizer {
    Dwfl *dwfl;
    char *debuginfo_path;
    Dwfl_Callbacks cb;
    struct cached *cache;
};

static char *dup_or_null(const char *s)
{
    return s ? tp_strdup(s) : NULL;
}

/* C++ names read better demangled. A C++ program has libstdc++ loaded, and with it the
 * demangler; a C program has nothing to demangle. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static char *function_name(const char *sym)
{
    static demangle_fn demangle;
    static int looked;
    if (!sym)
        return NULL;
    const char *at = strchr(sym, '@'); /* drop symbol versions: __libc_start_main@@GLIBC_2.34 */
    size_t n = at ? (size_t)(at - sym) : strlen(sym);
    char *plain = tp_alloc(n + 1);
    if (!plain)
        return NULL;
    memcpy(plain, sym, n);
    plain[n] = 0;
    if (plain[0] == '_' && plain[1] == 'Z') {
        if (!looked) {
            demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
            looked = 1;
        }
        int status = -1;
        char *d = demangle ? demangle(plain, NULL, NULL, &status) : NULL;
        if (d && status == 0) {
            char *copy = tp_strdup(d);
            free(d);
            if (copy) {
                tp_free(plain);
                return copy;
            }
        }
    }
    return plain;
}

/* ---- separate debug files, from this machine only ----
 *
 * dwfl_standard_find_debuginfo ends, for a module with a build-id whose debug file is not
 * installed, by asking debuginfod: libdw then loads libdebuginfod into the program, and with it
 * libcurl and a TLS library, whose exit handler frees, in the program's own exit, what they
 * allocated while tprof wrote a snapshot (1,489 "unknown frees" and one allocation of OpenSSL's
 * in the report at exit), and with DEBUGINFOD_URLS set it downloads from inside the profiled
 * program. So the same search is done here without that last step: by build-id under
 * /usr/lib/debug/.build-id (libdw's own function), then by .gnu_debuglink next to the file, in
 * its .debug directory and under /usr/lib/debug, the file's CRC checked. */

static uint32_t crc32_of_fd(int fd, int *ok)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    uint32_t crc = 0xffffffffu;
    unsigned char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
    *ok = n == 0;
    return crc ^ 0xffffffffu;
}

/* A debug file named by .gnu_debuglink in directory dir (of the module's file), or -1. */
static int debuglink_in(const char *dir, const char *link, GElf_Word crc, const char *self,
                        char **found)
{
    static const char *const forms[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char path[4096];
        int len = snprintf(path, sizeof path, forms[i], dir, link);
        if (len <= 0 || (size_t)len >= sizeof path || (self && !strcmp(path, self)))
            continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        int ok = 0;
        if (crc32_of_fd(fd, &ok) == crc && ok && lseek(fd, 0, SEEK_SET) == 0) {
            *found = strdup(path); /* libdw frees it */
            return fd;
        }
        close(fd);
    }
    return -1;
}

static int find_debuginfo_here(Dwfl_Module *mod, void **userdata, const char *modname,
                               Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                               GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    const unsigned char *bits = NULL;
    GElf_Addr vaddr = 0;
    if (dwfl_module_build_id(mod, &bits, &vaddr) <= 0) /* without a build-id, no debuginfod */
        return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
                                            debuglink_file, debuglink_crc, debuginfo_file_name);
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                          debuglink_file, debuglink_crc, debuginfo_file_name);
    if (fd >= 0 || !file_name || !debuglink_file || !*debuglink_file)
        return fd;
    char buf[4096], *real = realpath(file_name, NULL);
    const char *names[] = {file_name, real};
    for (size_t i = 0; i < 2 && fd < 0; i++) {
        if (!names[i] || (i == 1 && !strcmp(names[0], names[1])))
            continue;
        snprintf(buf, sizeof buf, "%s", names[i]);
        char *slash = strrchr(buf, '/');
        if (!slash)
            continue;
        *slash = 0;
        fd = debuglink_in(buf, debuglink_file, debuglink_crc, names[i], debuginfo_file_name);
    }
    free(real);
    return fd;
}

struct tp_symbolizer *tp_sym_open(void)
{
    struct tp_symbolizer *s = tp_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cb.find_elf = dwfl_linux_proc_find_elf;
    s->cb.find_debuginfo = find_debuginfo_here;
    s->cb.debuginfo_path = &s->debuginfo_path;
    s->dwfl = dwfl_begin(&s->cb);
    if (s->dwfl) {
        dwfl_report_begin(s->dwfl);
        int bad = dwfl_linux_proc_report(s->dwfl, getpid()) != 0;
        /* Libraries unloaded with dlclose: report them where they were, unless something else
         * is mapped there now (dwfl refuses overlapping modules). */
        int n;
        const struct tp_departed *d = tp_modules_departed(&n);
        for (int i = 0; !bad && i < n; i++) {
            if (dwfl_addrmodule(s->dwfl, d[i].lo) || dwfl_addrmodule(s->dwfl, d[i].hi - 1))
                continue;
            dwfl_report_elf(s->dwfl, d[i].path, d[i].path, -1, d[i].base, false);
        }
        if (bad || dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
            dwfl_end(s->dwfl);
            s->dwfl = NULL;
        }
    }
    return s;
}

static void describe(struct tp_symbolizer *s, uintptr_t pc, uintptr_t raw, struct tp_frame *out)
{
    memset(out, 0, sizeof *out);
    out->offset = raw;
    if (!s->dwfl)
        return;
    Dwfl_Module *m = dwfl_addrmodule(s->dwfl, pc);
    if (!m)
        return;
    Dwarf_Addr start = 0;
    const char *mainfile = NULL;
    const char *modname = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, &mainfile, NULL);
    out->module = dup_or_null(mainfile ? mainfile : modname);
    out->offset = raw - start;
    GElf_Off symoff = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(m, pc, &symoff, &sym, NULL, NULL, NULL);
    /* A symbol of size 0 that merely precedes the address does not contain it: an unnamed
     * frame is more honest than the wrong name. */
    if (name && (sym.st_size > 0 || symoff == 0))
        out->function = function_name(name);
    /* File:line of system libraries costs a decompression of their DWARF at exit (tens of
     * milliseconds for libc) and is rarely what a user looks for: their frames keep the
     * function name only. */
    const char *path = out->module;
    if (path && (!strncmp(path, "/lib/", 5) || !strncmp(path, "/usr/lib/", 9) ||
                 !strncmp(path, "/lib64/", 7)))
        return;
    Dwfl_Line *line = dwfl_module_getsrc(m, pc);
    if (line) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        if (file) {
            out->file = dup_or_null(file);
            out->line = lineno;
        }
    }
}

static void copy_frame(const struct tp_frame *in, struct tp_frame *out)
{
    out->function = dup_or_null(in->function);
    out->file = dup_or_null(in->file);
    out->module = dup_or_null(in->module);
    out->line = in->line;
    out->offset = in->offset;
}

void tp_sym_frame(struct tp_symbolizer *s, uintptr_t pc, int is_ret, struct tp_frame *out)
{
    struct cached *c = NULL;
    memset(out, 0, sizeof *out);
    if (!s) {
        out->offset = pc;
        return;
    }
    HASH_FIND(hh, s->cache, &pc, sizeof pc, c);
    if (!c) {
        c = tp_calloc(1, sizeof *c);
        if (!c) {
            out->offset = pc;
            return;
        }
        c->pc = pc;
        /* A return address points after the call; pc-1 is inside the calling line. The
         * module offset shown is that of the return address, as perf and heaptrack show it. */
        describe(s, is_ret && pc ? pc - 1 : pc, pc, &c->f);
        HASH_ADD(hh, s->cache, pc, sizeof c->pc, c);
    }
    copy_frame(&c->f, out);
}

void tp_sym_close(struct tp_symbolizer *s)
{
    if (!s)
        return;
    struct cached *c, *tmp;
    HASH_ITER(hh, s->cache, c, tmp)
    {
        HASH_DEL(s->cache, c);
        tp_free(c->f.function);
        tp_free(c->f.file);
        tp_free(c->f.module);
        tp_free(c);
    }
    if (s->dwfl)
        dwfl_end(s->dwfl);
    tp_free(s->debuginfo_path);
    tp_free(s);
}
