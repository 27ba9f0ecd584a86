/* Ops in shared libraries of a program that cannot be rebuilt: finding and patching GOT entries.
 *
 * A call from one module into an exported function of another (darknet → libdarknet.so's gemm),
 * or from a library into its own export (libdarknet's convolution → gemm, with gcc's default
 * semantic interposition), goes through the PLT and a GOT entry with a JUMP_SLOT relocation. For
 * every such entry of every loaded module whose symbol matches TPROF_OPS (or is TPROF_STEP), the
 * GOT entry is pointed at a stub of our own.
 *
 * Only JUMP_SLOT entries: they are reached by calls alone. An address taken (GLOB_DAT, a pointer
 * initialised in data) is left alone, so a function's address compares equal to itself wherever
 * it was taken: code such as OpenSSL's `if (malloc_impl != CRYPTO_malloc) return
 * malloc_impl(...)` would otherwise call itself forever. Calls through such a pointer are not
 * seen (darknet's layer->forward), except from a non-PIE executable, whose PLT entry is the
 * function's address and jumps through its own, hooked, JUMP_SLOT entry.
 *
 * Nothing here opens an object (dlopen, even RTLD_NOLOAD, would run the constructors still
 * pending in its group, out of order: a scan may run inside a constructor that calls dlopen or
 * malloc while the loader is initialising other objects). Everything is read from the memory
 * dl_iterate_phdr describes. A slot that ld.so has not relocated yet (another thread's dlopen
 * in progress) is left for the scan after that dlopen. A slot not bound yet (lazy binding) is
 * not bound by us either, unless both modules were loaded at start (patch_relocs): its stub
 * jumps to where the slot pointed, the PLT's call into ld.so's resolver, which binds it
 * (recording the dependency that keeps the target loaded, as for any call) and writes the
 * function into the slot; when that call returns, the stub is put back and jumps to that
 * function from then on. Nor is any module kept loaded by us.
 *
 * The stubs, what they record and how they return are shim_plt.c's.
 *
 * Not hooked: functions tprof interposes itself (the BLAS wrappers), the C runtime, language
 * runtimes and system libraries (tp_syslib_denied, track/sym/syslibs.c), and tprof's own dependencies. Which exports are ops:
 * TPROF_OPS's globs; when it is not set, every C export of a library the program calls, wherever
 * it is installed (the program: the executable and its libraries outside the system's library
 * directories, system_dir in plt_mods.c; a Debian numeric library in /usr/lib/x86_64-linux-gnu
 * whose run function is the model's is one; and, in a system library the program links itself,
 * its calls into its own exports: mark_called in plt_mods.c), but not one system library's calls
 * into another (Qt's into libGLdispatch), nor a system BLAS's other exports, nor the set-up the default list
 * excludes (tp_names_default_export), so that the function taking the time is found whatever its
 * name, and the tiny ones are demoted to counts (track/ops/demote.c).
 * C++ exports are matched by their demangled names (and under the default only by the globs,
 * never the standard library's); libraries that link a C++ runtime are hooked like any other:
 * an exception unwinding through a hooked call finds the real return addresses
 * (shim_unwind.c). */
#include "preload/plt/plt.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/hook/hook.h"
#include "preload/plt/plt_mods.h"
#include "preload/plt/plt_pool.h"
#include "preload/plt/shim_plt.h"
#include "report/report.h"
#include "track/heap/heap.h"
#include "track/sym/sym.h"
#include "track/ops/ops.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/unwind/unwind.h"

static int plt_on;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t patched, protect_failed, deepbind;

/* Modules whose GOT is already hooked: (name, bias). */
struct done {
    char *name;
    uintptr_t bias;
    int initial;
};
static struct done *done;
static int scanned; /* the modules loaded at start have been seen */
static size_t ndone, capdone;

static uintptr_t dyn_ptr(const struct plt_module *m, uintptr_t v)
{
    /* ld.so rewrites most d_ptr entries to run-time addresses; an unrewritten one is an
     * offset from the load bias. */
    return v < m->lo ? v + m->bias : v;
}

static void write_got(const struct plt_module *m, uintptr_t *got, uintptr_t value)
{
    uintptr_t a = (uintptr_t)got;
    int ro = a >= m->relro_lo && a < m->relro_hi;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *page = (void *)(a & ~(pg - 1));
    if (ro && mprotect(page, pg, PROT_READ | PROT_WRITE) != 0) {
        atomic_fetch_add(&protect_failed, 1);
        return;
    }
    __atomic_store_n(got, value, __ATOMIC_RELEASE);
    if (ro)
        mprotect(page, pg, PROT_READ);
    atomic_fetch_add(&patched, 1);
}

static struct done *done_entry(const struct plt_module *m)
{
    for (size_t i = 0; i < ndone; i++)
        if (done[i].bias == m->bias && !strcmp(done[i].name, m->name))
            return &done[i];
    return NULL;
}

static void mark_done(const struct plt_module *m)
{
    if (ndone == capdone) {
        size_t cap = capdone ? 2 * capdone : 64;
        struct done *v = tp_realloc(done, cap * sizeof *v);
        if (!v)
            return;
        done = v;
        capdone = cap;
    }
    done[ndone].name = tp_strdup(m->name);
    if (done[ndone].name) {
        done[ndone].bias = m->bias;
        done[ndone].initial = m->initial;
        ndone++;
    }
}

/* Internals of MPI runtimes exported from libmpi itself (ompi_datatype_default_convertors_init
 * matched *conv*), and Python's C API, which a python executable exports itself
 * (PyUnicode_FSConverter matched *conv*): never a model's op unless named exactly. */
static int runtime_internal(const char *name)
{
    static const char *const prefixes[] = {"ompi_", "opal_", "orte_", "pmix_", "mca_", "Py", "_Py"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* A demangled C++ name of the standard library's: "std::...", or a template instantiation's
 * "<return type> std::..." ("void std::vector<...>::_M_realloc_insert(...)", whose
 * __normal_iterator parameters matched *norm*). */
static int std_lib(const char *name)
{
    const char *s = strstr(name, "std::");
    if (!s)
        return !strncmp(name, "__gnu_cxx::", 11) || !strncmp(name, "__cxx", 5);
    for (const char *c = name; c < s; c++)
        if (*c == '(' || *c == '<')
            return 0; /* std:: in a parameter or template argument */
    return s == name || s[-1] == ' ' || s[-1] == '*' || s[-1] == '&';
}

/* Is the import `raw` an op or the step? name gets the name it goes by: raw, or demangled. */
static int wanted(const char *raw, char *name, size_t size, int *want_op, int *step)
{
    int deflist = tp_names_default(), dflt = deflist;
    size_t n = strnlen(raw, size - 1); /* snprintf's truncation, without its cost per import */
    memcpy(name, raw, n);
    name[n] = 0;
    if (raw[0] == '_' && raw[1] == 'Z') {
        /* C++: never the standard library's own templates and operators */
        tp_symtab_demangle(raw, name, size);
        if (std_lib(name) || strstr(name, "operator") || !strcmp(name, raw))
            return 0;
        dflt = 0;
    }
    /* A runtime's internal only when named exactly (the default list names none): asked
     * first, as an extension module of Python imports hundreds of the interpreter's functions.
     * Under the default list every op pattern's match is a default export too (the list ends
     * with the same exclusions): one match of the two decides, once per import. */
    *want_op = (!runtime_internal(name) || (!deflist && tp_names_exact(name))) &&
               (dflt ? tp_names_default_export(name) : tp_names_is_op(name));
    *step = tp_names_is_step(name) || tp_names_is_step(raw);
    return *want_op || *step || tp_ggmlbuf_call(name) != TP_GGMLBUF_NONE;
}

/* Patch module m's JUMP_SLOT entries in rel[0..count). Returns how many wanted entries ld.so had
 * not relocated yet (the module is being loaded on another thread): they are left for a later
 * scan, since ld.so would overwrite them.
 *
 * A C++ name is demangled (which costs) only once it is known to lead into a library whose
 * exports may be ops. So is a C name matched, when nothing would be told of the names that
 * matched nothing (no TPROF_STEP, no exact name in TPROF_OPS: tp_unmatched_possible) and the ops
 * are the default ones, which a system library's exports never are: a compiler's 4,500 imports,
 * nearly all into system libraries, took a quarter of its instructions under tprof to match. */
int tp_plt_saw_cyg;

/* An import of the -finstrument-functions enter hook (preload/plt/plt.h). */
static int is_cyg(const char *raw)
{
    return raw[0] == '_' && raw[1] == '_' && !strcmp(raw, "__cyg_profile_func_enter");
}

/* Under the default ops a system library's export is an op when the program calls it, not when
 * another system library does (Qt calling libGLdispatch), nor a system BLAS's (its entry points
 * are wrapped, the rest is its machinery): see the top of this file. */
static int not_programs(const struct plt_module *m, const struct plt_module *def)
{
    return def->system && (def->blas || (m->system && !(m->called && def == m)));
}

static size_t patch_relocs(const struct plt_modlist *l, const struct plt_module *m,
                           const ElfW(Rela) * rel, size_t count, const ElfW(Sym) * symtab,
                           const char *strtab, size_t strsz, const ElfW(Half) * versym)
{
    size_t unrelocated = 0;
    int later = tp_names_default() && !tp_unmatched_possible();
    for (size_t i = 0; i < count; i++) {
        /* Only call sites: see the top of this file. */
        if ((unsigned)ELF64_R_TYPE(rel[i].r_info) != R_X86_64_JUMP_SLOT)
            continue;
        const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
        int st = ELF64_ST_TYPE(sym->st_info);
        if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE)
            continue;
        if (!sym->st_name || (strsz && sym->st_name >= strsz))
            continue;
        const char *raw = strtab + sym->st_name;
        tp_plt_saw_cyg |= is_cyg(raw);
        char name[256];
        int want_op = 0, step = 0, cxx = raw[0] == '_' && raw[1] == 'Z', late = cxx || later;
        if (!late && !wanted(raw, name, sizeof name, &want_op, &step)) {
            tp_seen_add(raw, 0); /* for the closest names to a setting that matched nothing */
            continue;
        }
        uintptr_t *got = (uintptr_t *)(m->bias + rel[i].r_offset);
        uintptr_t cur = __atomic_load_n(got, __ATOMIC_ACQUIRE);
        if (!cur || tp_plt_is_stub(cur))
            continue; /* 0: a weak import nobody defines */
        /* Not relocated yet, the entry still holds the file's value: an offset into the module
         * (which, unlike any address it will hold, is mapped nowhere). */
        if (cur + m->bias >= m->lo && cur + m->bias < m->hi && !tp_plt_mod_at(l, cur)) {
            unrelocated += cxx || !late || wanted(raw, name, sizeof name, &want_op, &step);
            continue;
        }
        /* Not bound yet (lazy binding): the entry points back into the module's own PLT, to
         * the code that calls ld.so's resolver, and so will the stub (see the top of this
         * file). (An entry of a library bound to its own export also points into the module;
         * the stub then jumps straight to the function, which is as right.) Between modules
         * loaded at start, where ld.so will bind is known exactly (tp_plt_first_def), and no module
         * involved can be unloaded: the entry is bound here, so that the first call is seen
         * even if it never returns (longjmp). Not for a versioned import, which may skip a
         * definition of another version, nor an IFUNC, whose resolver is not ours to run. */
        uintptr_t lazy = cur >= m->lo && cur < m->hi ? cur : 0, target = cur;
        const struct plt_module *def = tp_plt_mod_at(l, cur);
        if (lazy) {
            uintptr_t at;
            int ifunc;
            struct tp_symname n;
            tp_modmap_symname(raw, &n);
            /* later, from a system library: only the program's own modules' exports are ops. A
             * look in a few modules instead of a search of all (a program linked to OpenCV
             * binds 47,000 entries lazily, in 259 modules). */
            if (later && m->system && !m->called && !tp_plt_own_defines(l, &n))
                continue;
            def = tp_plt_first_def(l, &n, &at, &ifunc);
            size_t k = ELF64_R_SYM(rel[i].r_info);
            if (def && m->initial && def->initial && !ifunc && !(versym && versym[k] > 1)) {
                target = at;
                lazy = 0;
            }
        }
        if (!def || def->deny || tp_addr_is_ours(target))
            continue; /* tprof interposes it itself (BLAS: libtprof is denied), or a runtime */
        if (late &&
            ((later && not_programs(m, def)) || !wanted(raw, name, sizeof name, &want_op, &step)))
            continue; /* later: another system library's calls are not default ops, nor the step */
        if (not_programs(m, def) && tp_names_default()) {
            want_op = 0; /* see system_dir in plt_mods.c */
            if (!step)
                continue;
        }
        int s = tp_plt_slot(target, name, want_op, step);
        if (s < 0)
            continue;
        if (lazy)
            tp_plt_slot_lazy(s, cur, got);
        write_got(m, got, tp_plt_stub((uint32_t)s));
    }
    return unrelocated;
}

/* Patch module m; 0 if some entries must wait for ld.so to relocate them. */
static int patch_module(const struct plt_modlist *l, const struct plt_module *m)
{
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL;
    const ElfW(Half) *versym = NULL;
    size_t strsz = 0, pltrelsz = 0;
    long pltrel = DT_RELA;
    for (const ElfW(Dyn) *d = m->dyn; d && d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(m, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(m, d->d_un.d_ptr); break;
        case DT_STRSZ: strsz = d->d_un.d_val; break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_ptr(m, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
        case DT_VERSYM: versym = (const ElfW(Half) *)dyn_ptr(m, d->d_un.d_ptr); break;
        }
    }
    if (!symtab || !strtab || !jmprel || pltrel != DT_RELA)
        return 1;
    return patch_relocs(l, m, jmprel, pltrelsz / sizeof(ElfW(Rela)), symtab, strtab, strsz,
                        versym) == 0;
}

/* Entries whose stub a call did not get to put back (made while tprof was not recording, or
 * left by longjmp; or bound by two threads at once, the later one writing over the stub). */
void tp_plt_scan(void)
{
    if (!plt_on)
        return;
    struct tp_own g = tp_own_begin(); /* our lists allocate */
    pthread_mutex_lock(&lock);
    struct plt_modlist l = {0};
    tp_plt_mods_list(&l);
    for (size_t i = 0; i < l.n; i++) {
        struct done *d = done_entry(&l.v[i]);
        l.v[i].initial = !scanned || (d && d->initial);
    }
    for (size_t i = 0; i < l.n; i++) {
        struct plt_module *m = &l.v[i];
        if (done_entry(m))
            continue;
        if (m->deny || patch_module(&l, m))
            mark_done(m);
    }
    tp_plt_resettle();
    scanned = 1;
    tp_plt_mods_free(&l);
    pthread_mutex_unlock(&lock);
    tp_own_end(g);
}

static int got_present(uintptr_t a, void *arg)
{
    const struct plt_modlist *l = arg;
    for (size_t j = 0; j < l->n; j++)
        if (a >= l->v[j].lo && a < l->v[j].hi)
            return 1;
    return 0;
}

void tp_plt_forget(void)
{
    if (!plt_on)
        return;
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&lock);
    struct plt_modlist l = {0};
    tp_plt_mods_list(&l);
    size_t k = 0;
    for (size_t i = 0; i < ndone; i++) {
        int present = 0;
        for (size_t j = 0; j < l.n && !present; j++)
            present = l.v[j].bias == done[i].bias && !strcmp(l.v[j].name, done[i].name);
        if (present)
            done[k++] = done[i];
        else
            tp_free(done[i].name); /* loaded again later, it is hooked again */
    }
    ndone = k;
    /* A lazy slot's GOT entry went with its module: never written again. */
    tp_plt_drop_gots(got_present, &l);
    tp_plt_mods_free(&l);
    pthread_mutex_unlock(&lock);
    tp_own_end(g);
}

void tp_plt_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void tp_plt_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void tp_plt_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

void tp_plt_init(void)
{
    plt_on = tp_cfg.plt; /* TPROF_PLT, parsed with every other setting (common/config.c) */
    /* This thread's stack now (the malloc shims' stack walk needs it too, PLT hooks or not), not
     * in a hooked call that may run in a signal handler, where glibc's reading of
     * /proc/self/maps for the main thread could deadlock. */
    tp_stack_learn();
    if (!plt_on)
        return;
    tp_plt_shim_init();
    tp_plt_scan();
}

void tp_dl_note_deepbind(void)
{
    atomic_fetch_add(&deepbind, 1);
}

/* Functions left unhooked for want of a stub: the report is partial, and says why and how many
 * (each function counted once, when its first GOT entry was met). */
static void stubs_lost_note(struct tp_report *r, uint64_t lost)
{
    struct tp_plt_pool_state st;
    tp_plt_pool_state(&st);
    unsigned long long stubs = TP_PLT_NSTUBS + st.stubs;
    char why[128];
    if (st.limit == TP_PLT_POOL_BUDGET)
        snprintf(why, sizeof why,
                 "%llu stubs; with the call sites and ops, TPROF_MEMORY_BUDGET=%llu bytes", stubs,
                 (unsigned long long)st.budget);
    else if (st.limit == TP_PLT_POOL_MAX)
        snprintf(why, sizeof why, "%llu stubs, the most there can be", stubs);
    else
        snprintf(why, sizeof why, "%llu stubs; no memory for more that may run", stubs);
    r->partial = 1;
    tp_report_note(r, "PLT stubs full (%s): %llu shared-library functions were not hooked", why,
                   (unsigned long long)lost);
}

void tp_plt_collect(struct tp_report *r)
{
    if (!plt_on)
        return;
    struct tp_plt_shim_counts c = tp_plt_shim_counts();
    if (c.slots_full)
        stubs_lost_note(r, c.slots_full);
    if (atomic_load(&protect_failed))
        tp_report_note(r, "%llu GOT entries could not be made writable and were not hooked",
                       (unsigned long long)atomic_load(&protect_failed));
    if (c.frames_full)
        tp_report_note(r,
                       "%llu calls hooked through the PLT nested deeper than %d were not "
                       "timed",
                       (unsigned long long)c.frames_full, TP_PLT_FRAMES_MAX);
    if (c.stale)
        tp_report_note(r,
                       "%llu calls hooked through the PLT were left by longjmp or an exception; "
                       "each ended when that was noticed",
                       (unsigned long long)c.stale);
    if (atomic_load(&deepbind))
        tp_report_note(r,
                       "RTLD_DEEPBIND was removed from %llu dlopen calls: it would bypass "
                       "tprof's wrappers",
                       (unsigned long long)atomic_load(&deepbind));
}
