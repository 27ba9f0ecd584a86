/* Function names by address from each module's own symbol table (see symtab.h).
 *
 * dladdr sees only .dynsym, so it cannot name static functions or anything in an executable built
 * without -rdynamic. libelf reads .symtab straight
 * from the files; this runs on a cache miss of the caller only, so a lock is enough. */
#include "track/symtab.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "track/dwlib.h"
#include "track/modmap.h"
#include "track/runtime.h"
#include "track/symindex.h"

struct mod {
    char *file; /* the file read: /proc/self/exe for the main program */
    char *path; /* the path shown */
    uintptr_t bias, lo, hi;
    int read;            /* symbols read (or tried) */
    int seen;            /* in the latest listing */
    struct tp_sym *syms; /* sorted (track/symindex.h); names point into names */
    size_t nsyms;
    char *names;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct mod *mods;
static size_t nmods, capmods;
static _Atomic int stale = 1;

/* ---- the module list ---- */

struct listing {
    struct mod *v;
    size_t n, cap;
};

static int list_one(const struct tp_module *mod, void *arg)
{
    struct listing *l = arg;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct mod *v = tp_realloc(l->v, cap * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = cap;
    }
    struct mod *m = &l->v[l->n];
    memset(m, 0, sizeof *m);
    const char *name = mod->name;
    if (!*name) {
        char exe[4096];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[k > 0 ? k : 0] = 0;
        m->file = tp_strdup("/proc/self/exe");
        m->path = tp_strdup(exe);
    } else {
        m->file = tp_strdup(name);
        m->path = tp_strdup(name);
    }
    if (!m->file || !m->path) {
        tp_free(m->file);
        tp_free(m->path);
        return 1;
    }
    m->bias = mod->bias;
    m->lo = mod->lo;
    m->hi = mod->hi;
    l->n++;
    return 0;
}

static void drop(struct mod *m)
{
    tp_free(m->file);
    tp_free(m->path);
    tp_free(m->syms);
    tp_free(m->names);
}

/* List the loaded modules again; keep what was read of the ones still there. */
static void relist(void)
{
    struct listing l = {0};
    tp_modmap_each(list_one, &l);
    for (size_t i = 0; i < nmods; i++)
        mods[i].seen = 0;
    for (size_t j = 0; j < l.n; j++) {
        struct mod *s = &l.v[j];
        size_t i;
        for (i = 0; i < nmods; i++)
            if (mods[i].bias == s->bias && mods[i].lo == s->lo && !strcmp(mods[i].path, s->path))
                break;
        if (i < nmods) {
            mods[i].seen = 1;
            drop(s);
            continue;
        }
        if (nmods == capmods) {
            size_t cap = capmods ? 2 * capmods : 64;
            struct mod *v = tp_realloc(mods, cap * sizeof *v);
            if (!v) {
                drop(s);
                continue;
            }
            mods = v;
            capmods = cap;
        }
        mods[nmods] = *s;
        mods[nmods].seen = 1;
        nmods++;
    }
    size_t k = 0;
    for (size_t i = 0; i < nmods; i++) {
        if (mods[i].seen)
            mods[k++] = mods[i];
        else
            drop(&mods[i]);
    }
    nmods = k;
    tp_free(l.v);
    atomic_store(&stale, 0);
}

static struct mod *find_mod(uintptr_t a)
{
    for (size_t i = 0; i < nmods; i++)
        if (a >= mods[i].lo && a < mods[i].hi)
            return &mods[i];
    return NULL;
}

/* The module of a, listing the modules again when a is in none of them (dlopen since). */
static struct mod *module_of(uintptr_t a)
{
    if (atomic_load(&stale))
        relist();
    struct mod *m = find_mod(a);
    if (!m) {
        relist();
        m = find_mod(a);
    }
    return m;
}

/* ---- reading symbols ---- */

static Elf_Scn *section_of_type(Elf *e, Elf64_Word type)
{
    Elf_Scn *s = NULL;
    while ((s = tp_dw.elf_nextscn(e, s)) != NULL) {
        GElf_Shdr sh;
        if (tp_dw.gelf_getshdr(s, &sh) && sh.sh_type == type)
            return s;
    }
    return NULL;
}

/* /usr/lib/debug/.build-id/ab/cdef....debug for a stripped file, when the debug package is
 * installed: distributions strip .symtab from their binaries. */
static int debug_file_of(Elf *e, char *out, size_t n)
{
    Elf_Scn *s = NULL;
    while ((s = tp_dw.elf_nextscn(e, s)) != NULL) {
        GElf_Shdr sh;
        if (!tp_dw.gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = tp_dw.elf_getdata(s, NULL);
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while (d && (off = tp_dw.gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
                memcmp((char *)d->d_buf + name_off, "GNU", 4) != 0 || nh.n_descsz < 2)
                continue;
            const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
            size_t k = (size_t)snprintf(out, n, "/usr/lib/debug/.build-id/%02x/", id[0]);
            for (size_t i = 1; i < nh.n_descsz && k + 3 < n; i++)
                k += (size_t)snprintf(out + k, n - k, "%02x", id[i]);
            if (k + 7 >= n)
                return -1;
            memcpy(out + k, ".debug", 7);
            return 0;
        }
    }
    return -1;
}

static int is_function(const GElf_Sym *s)
{
    int t = GELF_ST_TYPE(s->st_info);
    return (t == STT_FUNC || t == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF && s->st_value != 0;
}

static size_t plain_len(const char *name)
{
    const char *at = strchr(name, '@');
    return at ? (size_t)(at - name) : strlen(name);
}

/* The module's function symbols from one symbol table, in one pass over it: the names point into
 * the file's string table until the kept ones (one per address) are copied out, together. */
static void load_from(struct mod *m, Elf *e, Elf_Scn *scn)
{
    GElf_Shdr sh;
    Elf_Data *d = tp_dw.elf_getdata(scn, NULL);
    if (!d || !tp_dw.gelf_getshdr(scn, &sh) || !sh.sh_entsize)
        return;
    size_t count = sh.sh_size / sh.sh_entsize, k = 0, bytes = 0;
    struct tp_sym *v = count ? tp_alloc(count * sizeof *v) : NULL;
    for (size_t i = 0; v && i < count; i++) {
        GElf_Sym s;
        const char *name;
        if (!tp_dw.gelf_getsym(d, (int)i, &s) || !is_function(&s) ||
            !(name = tp_dw.elf_strptr(e, sh.sh_link, s.st_name)) || !*name)
            continue;
        v[k].start = m->bias + (uintptr_t)s.st_value;
        v[k].size = s.st_size;
        v[k].name = name;
        v[k].order = (uint32_t)i;
        v[k].rank = (uint8_t)tp_sym_rank(GELF_ST_BIND(s.st_info));
        k++;
    }
    tp_symindex_finish(v, &k);
    for (size_t i = 0; i < k; i++)
        bytes += plain_len(v[i].name) + 1;
    char *names = k ? tp_alloc(bytes) : NULL;
    if (!names) {
        tp_free(v);
        return;
    }
    for (size_t i = 0, at = 0; i < k; i++) {
        size_t len = plain_len(v[i].name);
        memcpy(names + at, v[i].name, len);
        names[at + len] = 0;
        v[i].name = names + at;
        at += len + 1;
    }
    m->syms = v;
    m->nsyms = k;
    m->names = names;
}

static void read_syms(struct mod *m)
{
    if (!tp_dw_ready())
        return; /* elfutils is not loaded (yet): no names now, another try next time */
    m->read = 1;
    int fd = open(m->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf *e = tp_dw.elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (e && tp_dw.elf_kind(e) == ELF_K_ELF) {
        Elf_Scn *s = section_of_type(e, SHT_SYMTAB);
        if (s) {
            load_from(m, e, s);
        } else {
            char dbg[512];
            int dfd = debug_file_of(e, dbg, sizeof dbg) == 0 ? open(dbg, O_RDONLY | O_CLOEXEC) : -1;
            Elf *de = dfd >= 0 ? tp_dw.elf_begin(dfd, ELF_C_READ_MMAP, NULL) : NULL;
            Elf_Scn *ds = de ? section_of_type(de, SHT_SYMTAB) : NULL;
            if (ds)
                load_from(m, de, ds);
            if (de)
                tp_dw.elf_end(de);
            if (dfd >= 0)
                close(dfd);
            if (!m->syms && (s = section_of_type(e, SHT_DYNSYM)) != NULL)
                load_from(m, e, s);
        }
    }
    if (e)
        tp_dw.elf_end(e);
    close(fd);
}

static const struct tp_sym *sym_of(struct mod *m, uintptr_t a)
{
    if (!m->read)
        read_syms(m);
    return tp_symindex_find(m->syms, m->nsyms, a);
}

/* ---- the interface ---- */

int tp_symtab_lookup(uintptr_t addr, char *out, size_t n, uintptr_t *start)
{
    int rc = -1;
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&lock);
    struct mod *m = module_of(addr);
    const struct tp_sym *s = m ? sym_of(m, addr) : NULL;
    if (s && n > 0) {
        const char *name = s->name;
        size_t len = strlen(name);
        if (len >= n)
            len = n - 1;
        memcpy(out, name, len);
        out[len] = 0;
        if (start)
            *start = s->start;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    tp_own_end(g);
    return rc;
}

int tp_symtab_name(uintptr_t addr, char *out, size_t n)
{
    return tp_symtab_lookup(addr, out, n, NULL);
}

int tp_symtab_module(uintptr_t addr, char *path, size_t n, uintptr_t *bias, uintptr_t *lo,
                     uintptr_t *hi)
{
    int rc = -1;
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&lock);
    struct mod *m = module_of(addr);
    if (m) {
        if (path && n > 0) {
            snprintf(path, n, "%s", m->path);
        }
        if (bias)
            *bias = m->bias;
        if (lo)
            *lo = m->lo;
        if (hi)
            *hi = m->hi;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    tp_own_end(g);
    return rc;
}

int tp_symtab_functions(uintptr_t in_module, int (*want)(const char *name, void *arg),
                        int (*fn)(const char *name, uintptr_t start, uint64_t size, void *arg),
                        void *arg)
{
    int calls = -1;
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&lock);
    struct mod *m = module_of(in_module);
    if (m) {
        if (!m->read)
            read_syms(m);
        calls = 0;
        for (size_t i = 0; i < m->nsyms; i++) {
            const char *name = m->syms[i].name;
            if (want && !want(name, arg))
                continue;
            calls++;
            if (fn(name, m->syms[i].start, m->syms[i].size, arg))
                break;
        }
    }
    pthread_mutex_unlock(&lock);
    tp_own_end(g);
    return calls;
}

void tp_symtab_stale(void)
{
    atomic_store(&stale, 1);
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* libstdc++'s demangler. A C program (python3) that loads C++ libraries (torch) with dlopen's
 * default RTLD_LOCAL has libstdc++ loaded but out of the global scope, where dlsym(RTLD_DEFAULT)
 * never finds it: it is then asked for by its soname, among the objects already loaded
 * (RTLD_NOLOAD loads nothing). The reference taken then is never dropped: libstdc++ defines
 * STB_GNU_UNIQUE symbols, which make the dynamic loader keep it loaded anyway. Not found (no C++
 * loaded yet): asked again next time. */
static demangle_fn find_demangler(void)
{
    static _Atomic(demangle_fn) found;
    demangle_fn d = atomic_load(&found);
    if (d)
        return d;
    d = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!d) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
        d = h ? (demangle_fn)dlsym(h, "__cxa_demangle") : NULL;
        if (h && !d)
            dlclose(h);
    }
    if (d)
        atomic_store(&found, d);
    return d;
}

char *tp_symtab_demangled(const char *name)
{
    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    struct tp_own g = tp_own_begin(); /* the demangler allocates */
    demangle_fn d = find_demangler();
    int status = -1;
    char *s = d ? d(name, NULL, NULL, &status) : NULL;
    char *copy = s && status == 0 ? tp_strdup(s) : NULL;
    free(s);
    tp_own_end(g);
    return copy;
}

void tp_symtab_demangle(const char *name, char *out, size_t n)
{
    if (!n)
        return;
    char *s = tp_symtab_demangled(name);
    snprintf(out, n, "%s", s ? s : name);
    tp_free(s);
}

void tp_symtab_lock(void)
{
    pthread_mutex_lock(&lock);
}

void tp_symtab_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

void tp_symtab_reset_lock(void)
{
    pthread_mutex_init(&lock, NULL);
}
