/* dlopen and dlclose, wrapped so that the op hooks follow the modules a program loads and
 * unloads while it runs.
 *
 * dlopen: RTLD_DEEPBIND is removed (a deep-bound library resolves its imports inside itself
 * first and so bypasses every wrapper tprof interposes), then the new modules' GOTs are hooked.
 * A wrapped dlopen is called from libtprof.so, and glibc searches a bare library name with the
 * *caller's* DT_RUNPATH: a program whose RUNPATH ($ORIGIN/lib...) finds its plugins would fail to
 * load them. So for a bare name the caller's own search directories (dlinfo RTLD_DI_SERINFO of
 * the calling module: its RPATH, LD_LIBRARY_PATH, its RUNPATH) are tried first, in glibc's order.
 *
 * dlclose: the address ranges of the modules it unloads are remembered for naming call sites
 * (modmap.c: the one closed and the libraries that went with it), then,
 * once it is gone, the stack walker's cached rules, the symbol lists, the cached per-address
 * decisions of the instrumented-function hooks and the cached real functions of the BLAS
 * wrappers that were in it are dropped: the same addresses may hold other code next.
 *
 * Neither wrapper opens anything itself beyond what the program asked for: a constructor may
 * call dlopen while the loader is still initialising the objects of another dlopen, and opening
 * one of those (even with RTLD_NOLOAD) would run their constructors out of order. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/hook/hook.h"
#include "preload/plt/plt.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "track/sym/sym.h"
#include "track/runtime.h"
#include "track/unwind/unwind.h"
#include "track/ops/ops.h"

typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

static struct tp_real real_dlopen = {"dlopen"}, real_dlclose = {"dlclose"};
static _Atomic int deepbind_warned;

static dlopen_fn get_dlopen(void)
{
    return (dlopen_fn)tp_real_fn(&real_dlopen);
}

static dlclose_fn get_dlclose(void)
{
    return (dlclose_fn)tp_real_fn(&real_dlclose);
}

static int has_search_path(const ElfW(Dyn) * dyn)
{
    for (const ElfW(Dyn) *d = dyn; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_RUNPATH || d->d_tag == DT_RPATH)
            return 1;
    return 0;
}

/* Open a bare name the way the caller's own dlopen would search it. NULL, errno untouched, when
 * none of the caller's directories has it: then the plain dlopen searches the rest (the
 * ld.so cache and the default directories) exactly as it would have. */
static void *open_as_caller(dlopen_fn real, const char *file, int mode, const void *ra)
{
    Dl_info info;
    struct link_map *caller = NULL;
    if (!dladdr1(ra, &info, (void **)&caller, RTLD_DL_LINKMAP) || !caller)
        return NULL;
    /* DT_RPATH of the main program applies to every lookup (when the caller has no RUNPATH);
     * DT_RUNPATH and DT_RPATH of the caller apply to its own. */
    if (!has_search_path(caller->l_ld) && !has_search_path(tp_modmap_main_dynamic()))
        return NULL;
    /* Already loaded (by file name or soname): the plain dlopen finds it whatever the caller.
     * Asked of the loader itself (it alone knows every name an object was opened by). This
     * dlopen of the program's own file does nothing the program's call would not do next: if
     * the object is loaded but not yet initialised, that call would run the same constructors. */
    void *h = real(file, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
        get_dlclose()(h);
        return NULL;
    }
    Dl_serinfo size;
    if (dlinfo(caller, RTLD_DI_SERINFOSIZE, &size) != 0 || size.dls_size < sizeof size)
        return NULL;
    Dl_serinfo *si = tp_alloc(size.dls_size);
    if (!si)
        return NULL;
    si->dls_size = size.dls_size;
    si->dls_cnt = size.dls_cnt;
    h = NULL;
    if (dlinfo(caller, RTLD_DI_SERINFO, si) == 0) {
        for (unsigned i = 0; i < si->dls_cnt && !h; i++) {
            /* The default directories come last; the plain dlopen searches the cache before
             * them, so leave them to it. */
            if (si->dls_serpath[i].dls_flags == LA_SER_DEFAULT)
                break;
            char path[4096];
            int n = snprintf(path, sizeof path, "%s/%s", si->dls_serpath[i].dls_name, file);
            if (n <= 0 || (size_t)n >= sizeof path || access(path, F_OK) != 0)
                continue;
            h = real(path, mode);
        }
    }
    tp_free(si);
    return h;
}

TP_EXPORT TP_NOINSTR void *dlopen(const char *file, int mode)
{
    dlopen_fn real = get_dlopen();
    if (!real)
        return NULL;
    /* tprof's own lookups (real.c, plt_patch.c) and anything before start-up pass straight. */
    if (tp_guard || !tp_running())
        return real(file, mode);
    int e = errno;
    if (mode & RTLD_DEEPBIND) {
        mode &= ~RTLD_DEEPBIND;
        tp_dl_note_deepbind();
        int w = 0;
        if (atomic_compare_exchange_strong(&deepbind_warned, &w, 1))
            tp_warn("dlopen(%s, RTLD_DEEPBIND): RTLD_DEEPBIND removed: it would bypass tprof's "
                    "wrappers",
                    file ? file : "NULL");
    }
    void *h = NULL;
    if (file && !strchr(file, '/') && !(mode & RTLD_NOLOAD)) {
        struct tp_own g = tp_own_begin();
        h = open_as_caller(real, file, mode, __builtin_return_address(0));
        tp_own_end(g);
    }
    errno = e;
    if (!h)
        h = real(file, mode);
    e = errno;
    if (h && !(mode & RTLD_NOLOAD)) {
        tp_plt_scan();
        tp_wait_map_modules(); /* an OpenMP runtime the library brought */
    } else if (!h)
        tp_plt_forget(); /* objects mapped by a dlopen that failed are gone again */
    errno = e;
    return h;
}

TP_EXPORT TP_NOINSTR int dlclose(void *handle)
{
    dlclose_fn real = get_dlclose();
    if (!real)
        return -1;
    if (tp_guard || !tp_running()) {
        /* What points into the unloaded code is dropped whatever the state: tprof's wrappers
         * and stubs still call through it before start-up and while the report is written, and
         * the unloaded code's cached stack rules would describe whatever is mapped there next. */
        tp_unwind_dlclose_begin();
        int rc = real(handle), e = errno;
        tp_unwind_dlclosed();
        tp_real_forget();
        if (!tp_guard)
            tp_plt_forget();
        errno = e;
        return rc;
    }
    struct tp_own g = tp_own_begin();
    struct tp_modmap_snap snap;
    tp_modmap_before_dlclose(&snap);
    tp_unwind_dlclose_begin();
    tp_own_end(g);
    int rc = real(handle);
    int e = errno;
    g = tp_own_begin();
    tp_modmap_after_dlclose(&snap);
    tp_unwind_dlclosed();
    tp_symtab_stale();
    tp_cyg_forget();
    tp_plt_forget();
    tp_real_forget();
    tp_wait_remap_modules(); /* an OpenMP runtime may have gone with the library */
    tp_own_end(g);
    errno = e;
    return rc;
}
