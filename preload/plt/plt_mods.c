/* The loaded modules as the PLT scan sees them (see plt_mods.h). */
#include "preload/plt/plt_mods.h"

#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "track/runtime.h"
#include "track/sym/sym.h"

/* Is the module in one of the system's library directories (/usr/lib, /lib64, the multiarch
 * /usr/lib/x86_64-linux-gnu and anything below it, such as its blas/ and openblas-pthread/), or in
 * such a tree under another root (a chroot, a container's file system, a package unpacked with
 * dpkg -x: <root>/usr/lib/x86_64-linux-gnu)? Those hold the system's libraries: one of them
 * calling another is not the program's doing, so under the default op selection such a call is
 * not an op (Qt's into libGLdispatch, OpenCV's, the reference BLAS's lsame_); the program's own
 * calls into them are (plt_patch.c). Another subdirectory (/usr/lib/darknet, a Python package's
 * lib/) holds the program's own. */
static int system_dir(const char *path)
{
    static const char *const dirs[] = {"/lib",       "/usr/lib", "/lib64",
                                       "/usr/lib64", "/lib32",   "/usr/lib32"};
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    size_t n = (size_t)(slash - path);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        size_t d = strlen(dirs[i]);
        /* at the root, or a /usr/lib... tree under another directory */
        const char *at = path;
        if (strncmp(path, dirs[i], d) && dirs[i][1] == 'u') {
            const char *u = memmem(path, n, dirs[i], d);
            at = u && (size_t)(u - path) + d <= n ? u : NULL;
        } else if (strncmp(path, dirs[i], d)) {
            continue;
        }
        if (!at)
            continue;
        size_t rest = n - (size_t)(at - path);
        if (rest < d || (rest > d && at[d] != '/'))
            continue;
        if (rest == d)
            return 1;
        /* a multiarch directory /usr/lib/<triplet>, or below it */
        const char *c = at + d + 1, *e = memchr(c, '/', (size_t)(path + n - c));
        size_t len = e ? (size_t)(e - c) : (size_t)(path + n - c);
        if (memmem(c, len, "-linux-", 7))
            return 1;
    }
    return 0;
}

/* A BLAS library: tprof wraps its entry points itself (preload/hook/hook_blas.c); its other exports
 * (OpenBLAS's exec_blas, blas_memory_alloc, openblas_read_env; the reference BLAS's lsame_) are
 * its machinery, not the program's model, even where the program links it. */
static int blas_runtime(const char *path)
{
    static const char *const prefixes[] = {"libopenblas", "libblas.so",   "libcblas.so",
                                           "libblis",     "libflexiblas", "libmkl_",
                                           "libatlas.so", "libsatlas.so", "libtatlas.so"};
    const char *b = tp_base_name(path, NULL);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(b, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

static int list_module(const struct tp_module *tm, void *arg)
{
    struct plt_modlist *l = arg;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct plt_module *v = tp_realloc(l->v, cap * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = cap;
    }
    struct plt_module m = {0};
    m.name = tp_strdup(tm->name);
    if (!m.name)
        return 1;
    m.bias = tm->bias;
    m.lo = tm->lo;
    m.hi = tm->hi;
    m.dyn = tm->dyn;
    m.relro_lo = tm->relro_lo;
    m.relro_hi = tm->relro_hi;
    m.deny = tp_syslib_denied(m.name) || tm->self;
    m.system = system_dir(m.name);
    m.blas = m.system && blas_runtime(m.name);
    tp_modmap_dynsyms(tm, &m.syms);
    l->v[l->n++] = m;
    return 0;
}

void tp_plt_mods_free(struct plt_modlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        tp_free(l->v[i].name);
    tp_free(l->v);
    tp_free(l->by_lo);
    tp_free(l->own);
}

static int by_lo(const void *a, const void *b)
{
    uintptr_t x = (*(const struct plt_module *const *)a)->lo,
              y = (*(const struct plt_module *const *)b)->lo;
    return x < y ? -1 : x > y;
}

/* Each GOT entry is looked up in the list (which module does it lead to?): a program linked to
 * OpenCV loads 259 modules and imports 77,000 functions. Without memory for the indexes, the
 * scan goes through the list in order, as it did before. */
static void index_list(struct plt_modlist *l)
{
    l->by_lo = tp_alloc((l->n ? l->n : 1) * sizeof *l->by_lo);
    l->own = tp_alloc((l->n ? l->n : 1) * sizeof *l->own);
    if (!l->by_lo || !l->own) {
        tp_free(l->by_lo);
        tp_free(l->own);
        l->by_lo = l->own = NULL;
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        l->by_lo[i] = &l->v[i];
        if (!l->v[i].deny && !l->v[i].system)
            l->own[l->nown++] = &l->v[i];
    }
    qsort(l->by_lo, l->n, sizeof *l->by_lo, by_lo);
    for (size_t i = 1; i < l->n; i++)
        if (l->by_lo[i]->lo < l->by_lo[i - 1]->hi) {
            tp_free(l->by_lo); /* a module mapped in another's gap: the first in load order */
            l->by_lo = NULL;
            break;
        }
}

const struct plt_module *tp_plt_mod_at(const struct plt_modlist *l, uintptr_t a)
{
    if (!l->by_lo) {
        for (size_t i = 0; i < l->n; i++)
            if (a >= l->v[i].lo && a < l->v[i].hi)
                return &l->v[i];
        return NULL;
    }
    size_t lo = 0, hi = l->n; /* the last module starting at or below a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->by_lo[mid]->lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && a < l->by_lo[lo - 1]->hi ? l->by_lo[lo - 1] : NULL;
}

/* 1 when a module of the program's own defines the name n (the default ops take no other
 * module's exports), or when the list has no index to tell. */
int tp_plt_own_defines(const struct plt_modlist *l, struct tp_symname *n)
{
    if (!l->own)
        return 1;
    for (size_t i = 0; i < l->nown; i++) {
        int ifunc;
        if (tp_dynsyms_may_define(&l->own[i]->syms, n->gnu) &&
            tp_modmap_lookup(&l->own[i]->syms, n, &ifunc))
            return 1;
    }
    return 0;
}

/* The first module in load order that defines name, and where (*ifunc: that is an IFUNC
 * resolver). For a module loaded at start, when that module was loaded at start too, it is
 * exactly where ld.so binds the name: those modules make up the start of the global scope, in
 * load order, and the global scope is searched first. Otherwise it is a guess: a library loaded
 * RTLD_LOCAL may bind to another copy, in its own scope. NULL if no module defines it (yet). */
const struct plt_module *tp_plt_first_def(const struct plt_modlist *l, struct tp_symname *n,
                                          uintptr_t *at, int *ifunc)
{
    /* Each module's table and the name's hash once: a big C++ library imports thousands of
     * its own exports, each looked for in every module before it (perf of torch's import: 15%
     * of the process's time went to finding the dynamic sections and hashing the names again). */
    *at = 0;
    *ifunc = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!tp_dynsyms_may_define(&l->v[i].syms, n->gnu))
            continue;
        *at = tp_modmap_lookup(&l->v[i].syms, n, ifunc);
        if (*at)
            return &l->v[i];
    }
    return NULL;
}

/* The module's DT_NEEDED names (up to max) and its DT_SONAME; returns how many names. */
static size_t needed_of(const struct plt_module *m, const char **need, size_t max,
                        const char **soname)
{
    const char *str = m->syms.str;
    size_t n = 0;
    *soname = NULL;
    for (const ElfW(Dyn) *d = m->dyn; str && d && d->d_tag != DT_NULL; d++) {
        if (m->syms.strsz && d->d_un.d_val >= m->syms.strsz)
            continue;
        if (d->d_tag == DT_NEEDED && n < max)
            need[n++] = str + d->d_un.d_val;
        else if (d->d_tag == DT_SONAME)
            *soname = str + d->d_un.d_val;
    }
    return n;
}

/* Flag the system libraries the program links itself (a DT_NEEDED of the executable or of one of
 * its own libraries): their calls into their own exports are the program's model too (libfann's
 * fann_train into fann_update_weights), where one system library's calls into another are not. */
static void mark_called(struct plt_modlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct plt_module *o = &l->v[i];
        const char *need[64], *so;
        if (o->system || o->deny)
            continue;
        size_t k = needed_of(o, need, sizeof need / sizeof need[0], &so);
        for (size_t j = 0; j < l->n; j++) {
            struct plt_module *t = &l->v[j];
            const char *tso;
            if (!t->system || t->deny || t->blas || t->called)
                continue;
            needed_of(t, NULL, 0, &tso);
            for (size_t q = 0; q < k && !t->called; q++)
                t->called =
                    (tso && !strcmp(need[q], tso)) || !strcmp(need[q], tp_base_name(t->name, NULL));
        }
    }
}

void tp_plt_mods_list(struct plt_modlist *l)
{
    tp_modmap_each(list_module, l);
    mark_called(l);
    index_list(l);
}
