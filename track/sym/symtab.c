/* Function names by address from each module's own symbol table (see track/sym/sym.h).
 *
 * dladdr sees only .dynsym, so it cannot name static functions or anything in an executable built
 * without -rdynamic. .symtab is read straight from the files (mapped, bounds-checked); this runs
 * on a cache miss of the caller only, so a lock is enough. */
#include "track/sym/sym.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "track/runtime.h"
#include "common/names/names.h"
#include "common/names/names.h"

struct mod {
    char *file; /* the file read: /proc/self/exe for the main program */
    char *path; /* the path shown */
    uintptr_t bias, lo, hi;
    int read;            /* symbols read (or tried) */
    int seen;            /* in the latest listing */
    int stripped;        /* the file was read and has no .symtab */
    int instrumented;    /* calls __cyg_profile_func_enter: built with -finstrument-functions */
    struct tp_sym *syms; /* sorted (common/names/names.h); names point into names */
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

/* A file's ELF image, mapped read-only, with its section headers checked to lie inside it.
 * Read straight, not through libelf: the instrumented-function hooks name functions while the
 * program runs, in processes that never load elfutils (track/sym/dwlib.c). */
struct image {
    const unsigned char *p;
    size_t n;
    const Elf64_Shdr *sh;
    size_t nsh;
};

static int image_open(const char *path, struct image *im)
{
    memset(im, 0, sizeof *im);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    void *p = fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr)
                  ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    im->p = p;
    im->n = (size_t)st.st_size;
    const Elf64_Ehdr *eh = p;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff <= im->n &&
        eh->e_shnum <= (im->n - eh->e_shoff) / sizeof(Elf64_Shdr)) {
        im->sh = (const Elf64_Shdr *)(im->p + eh->e_shoff);
        im->nsh = eh->e_shnum;
    }
    return 0;
}

static void image_close(struct image *im)
{
    if (im->p)
        munmap((void *)im->p, im->n);
}

/* Section i's bytes, NULL when it has none in the file or they would lie outside it. */
static const unsigned char *section_bytes(const struct image *im, size_t i)
{
    if (i >= im->nsh)
        return NULL;
    const Elf64_Shdr *h = &im->sh[i];
    if (h->sh_type == SHT_NOBITS || h->sh_offset > im->n || h->sh_size > im->n - h->sh_offset)
        return NULL;
    return im->p + h->sh_offset;
}

static long section_of_type(const struct image *im, Elf64_Word type)
{
    for (size_t i = 0; i < im->nsh; i++)
        if (im->sh[i].sh_type == type && section_bytes(im, i))
            return (long)i;
    return -1;
}

/* The GNU build ID note of a note section: its bytes and length, or NULL. */
static const unsigned char *build_id_in(const struct image *im, size_t i, size_t *len)
{
    const unsigned char *d = section_bytes(im, i);
    size_t size = d ? im->sh[i].sh_size : 0, align = im->sh[i].sh_addralign == 8 ? 8 : 4;
    for (size_t off = 0; size - off >= sizeof(Elf64_Nhdr) && off < size;) {
        Elf64_Nhdr nh;
        memcpy(&nh, d + off, sizeof nh);
        size_t name = off + sizeof nh, desc = name + ((nh.n_namesz + align - 1) & ~(align - 1));
        if (nh.n_namesz > size || nh.n_descsz > size || desc > size || nh.n_descsz > size - desc)
            return NULL;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(d + name, "GNU", 4) &&
            nh.n_descsz >= 2) {
            *len = nh.n_descsz;
            return d + desc;
        }
        off = desc + ((nh.n_descsz + align - 1) & ~(align - 1));
    }
    return NULL;
}

/* /usr/lib/debug/.build-id/ab/cdef....debug for a stripped file, when the debug package is
 * installed: distributions strip .symtab from their binaries. */
static int debug_file_of(const struct image *im, char *out, size_t n)
{
    for (size_t i = 0; i < im->nsh; i++) {
        size_t len;
        const unsigned char *id = im->sh[i].sh_type == SHT_NOTE ? build_id_in(im, i, &len) : NULL;
        if (!id)
            continue;
        size_t k = (size_t)snprintf(out, n, "/usr/lib/debug/.build-id/%02x/", id[0]);
        for (size_t j = 1; j < len && k + 3 < n; j++)
            k += (size_t)snprintf(out + k, n - k, "%02x", id[j]);
        if (k + 7 >= n)
            return -1;
        memcpy(out + k, ".debug", 7);
        return 0;
    }
    return -1;
}

static int is_function(const Elf64_Sym *s)
{
    int t = ELF64_ST_TYPE(s->st_info);
    return (t == STT_FUNC || t == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF && s->st_value != 0;
}

static size_t plain_len(const char *name)
{
    const char *at = strchr(name, '@');
    return at ? (size_t)(at - name) : strlen(name);
}

/* A name of the string table str[0..n), NULL unless it ends inside the table. */
static const char *string_at(const unsigned char *str, size_t n, size_t off)
{
    if (!str || off >= n || !memchr(str + off, 0, n - off))
        return NULL;
    return (const char *)str + off;
}

/* The module's function symbols from symbol table section scn, in one pass over it: the names
 * point into the file's string table until the kept ones (one per address) are copied out,
 * together. */
static void load_from(struct mod *m, const struct image *im, long scn)
{
    const Elf64_Shdr *h = &im->sh[scn];
    const unsigned char *d = section_bytes(im, (size_t)scn);
    const unsigned char *str = section_bytes(im, h->sh_link);
    size_t strsz = str ? im->sh[h->sh_link].sh_size : 0;
    if (!d || h->sh_entsize != sizeof(Elf64_Sym))
        return;
    size_t count = h->sh_size / sizeof(Elf64_Sym), k = 0, bytes = 0;
    struct tp_sym *v = count ? tp_alloc(count * sizeof *v) : NULL;
    for (size_t i = 0; v && i < count; i++) {
        Elf64_Sym s;
        memcpy(&s, d + i * sizeof s, sizeof s);
        const char *name;
        if (s.st_shndx == SHN_UNDEF && (name = string_at(str, strsz, s.st_name)) &&
            !strncmp(name, "__cyg_profile_func_enter", 24) && plain_len(name) == 24)
            m->instrumented = 1;
        if (!is_function(&s) || !(name = string_at(str, strsz, s.st_name)) || !*name)
            continue;
        v[k].start = m->bias + (uintptr_t)s.st_value;
        v[k].size = s.st_size;
        v[k].name = name;
        v[k].order = (uint32_t)i;
        v[k].rank = (uint8_t)tp_sym_rank(ELF64_ST_BIND(s.st_info));
        v[k].hidden = ELF64_ST_VISIBILITY(s.st_other) != STV_DEFAULT;
        k++;
    }
    struct tp_sym *scratch = tp_alloc(k * sizeof *v + 1);
    tp_symindex_finish(v, &k, scratch);
    tp_free(scratch);
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
    struct image im, dim = {0};
    m->read = 1;
    if (image_open(m->file, &im) < 0)
        return;
    long s = section_of_type(&im, SHT_SYMTAB);
    m->stripped = s < 0;
    if (s >= 0) {
        load_from(m, &im, s);
    } else {
        char dbg[512];
        if (debug_file_of(&im, dbg, sizeof dbg) == 0 && image_open(dbg, &dim) == 0 &&
            (s = section_of_type(&dim, SHT_SYMTAB)) >= 0)
            load_from(m, &dim, s);
        image_close(&dim);
        if (!m->syms && (s = section_of_type(&im, SHT_DYNSYM)) >= 0)
            load_from(m, &im, s);
    }
    image_close(&im);
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

int tp_symtab_kind(uintptr_t addr, struct tp_symkind *k)
{
    int rc = -1;
    memset(k, 0, sizeof *k);
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&lock);
    struct mod *m = module_of(addr);
    const struct tp_sym *s = m ? sym_of(m, addr) : NULL;
    if (m) {
        k->in_exe = !strcmp(m->file, "/proc/self/exe");
        k->stripped = m->stripped;
        k->instrumented = m->instrumented;
        k->found = s != NULL;
        k->size = s ? s->size : 0;
        /* global or weak, default visibility: in .dynsym, so a call from another module goes
         * through the PLT that TPROF_OPS hooks */
        k->exported = s && !k->in_exe && s->rank < 2 && !s->hidden;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    tp_own_end(g);
    return rc;
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

void tp_symtab_stale(void)
{
    atomic_store(&stale, 1);
}

char *tp_symtab_demangled(const char *name)
{
    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    struct tp_own g = tp_own_begin(); /* the demangler allocates */
    char *s = tp_demangle(name, 0);
    char *copy = s ? tp_strdup(s) : NULL;
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
