/* Which call sites are a system library's own keeping rather than the program's: the rule that
 * splits "still allocated at exit" into the program's leaks, what the C runtime, the dynamic
 * loader and the compiler's runtimes hold on purpose until the process ends, and what an
 * interpreter still holds when it exits; and what a site's memory is when a framework's tensor
 * allocator says so (torch's, numpy's), whatever directory the framework is installed in. */
#include <stdio.h>
#include <string.h>

#include "common/out/out.h"
#include "report/report.h"

static int is_loader(const char *m)
{
    const char *b = tp_base_name(m, "");
    return !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld.so", 5) || !strncmp(b, "ld64.so", 7);
}

/* Runtimes that never hand a heap block of theirs to their caller to own: whatever they hold at
 * exit is their own state (the Fortran runtime's units and its constructors, OpenMP's thread
 * pool, OpenBLAS's buffers), however the program's call reached them. */
static int is_keeping_runtime(const char *m)
{
    static const char *libs[] = {"libgfortran.", "libquadmath.", "libgomp.", "libopenblas"};
    const char *b = tp_base_name(m, "");
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (!strncmp(b, libs[i], strlen(libs[i])))
            return 1;
    return 0;
}

/* The C library's functions that allocate state it keeps for the life of the process: stdio
 * buffers (freed only by exit's own flush, after tprof's report), locale and time-zone data,
 * character-set conversion data. */
static const char *libc_keeper(const char *fn)
{
    if (!fn)
        return NULL;
    if (strstr(fn, "_IO_file_doallocate") || strstr(fn, "_IO_wfile_doallocate"))
        return "stdio buffer";
    if (!strncmp(fn, "_nl_", 4) || strstr(fn, "setlocale") || strstr(fn, "newlocale"))
        return "locale data";
    if (strstr(fn, "tzfile") || strstr(fn, "tzset") || strstr(fn, "__tzstring"))
        return "time zone data";
    /* iconv's module cache and the multibyte functions' conversion state, which libc loads at a
     * program's first mbstowcs or iconv_open (python3 at start-up) and keeps */
    if (!strncmp(fn, "__gconv", 7) || !strncmp(fn, "__wcsmbs_load_conv", 18))
        return "character-set conversion data";
    return NULL;
}

static int loader_tls(const char *fn)
{
    return fn && (strstr(fn, "tls") || strstr(fn, "dtv"));
}

/* The frames from frames[0] while they stay inside system libraries: the part of the stack
 * below the program's own code. Its length. */
static size_t system_run(const struct tp_site *s)
{
    size_t n = 0;
    while (n < s->nframes && tp_in_system_dir(s->frames[n].module, 0))
        n++;
    return n;
}

/* ---- roles: what the memory is ---- */

/* torch's CPU tensor storage: c10's allocator (alloc_cpu under DefaultCPUAllocator, the mobile
 * and caching allocators), in libc10 wherever it is installed (Debian: /usr/lib/<triplet>); by
 * their mangled names too, for a process where no demangler is loaded. */
static int torch_allocator(const char *fn)
{
    static const char *const names[] = {"c10::alloc_cpu(",
                                        "c10::DefaultCPUAllocator::",
                                        "c10::DefaultMobileCPUAllocator",
                                        "c10::CPUCachingAllocator::",
                                        "c10::CPUProfilingAllocator::",
                                        "_ZN3c109alloc_cpuE",
                                        "_ZN3c1019DefaultCPUAllocator",
                                        "_ZNK3c1019DefaultCPUAllocator",
                                        "_ZN3c1025DefaultMobileCPUAllocator",
                                        "_ZN3c1019CPUCachingAllocator"};
    for (size_t i = 0; fn && i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(fn, names[i], strlen(names[i])))
            return 1;
    return 0;
}

static int numpy_core(const char *m)
{
    return !strncmp(tp_base_name(m, ""), "_multiarray_umath", 17);
}

/* numpy's array data: its default data allocator (default_malloc/calloc/realloc, behind
 * PyDataMem_UserNEW and the small-block cache npy_alloc_cache) in numpy's core module. */
static int numpy_allocator(const struct tp_frame *f)
{
    static const char *const names[] = {
        "default_malloc",    "default_calloc",      "default_realloc",
        "PyDataMem_UserNEW", "PyDataMem_UserRENEW", "PyDataMem_NEW",
        "PyDataMem_RENEW",   "npy_alloc_cache",     "_npy_alloc_cache"};
    if (!f->function || !numpy_core(f->module))
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(f->function, names[i], strlen(names[i])))
            return 1;
    return 0;
}

/* A stripped numpy (Debian's, and most wheels: no names in its core module) calls the C
 * allocator itself for array data and little else; its import-time tables (under PyInit_) are
 * not arrays. */
static int numpy_stripped_data(const struct tp_site *s)
{
    if (!s->nframes || s->frames[0].function || !numpy_core(s->frames[0].module))
        return 0;
    for (size_t i = 0; i < s->nframes; i++)
        if (s->frames[i].function && !strncmp(s->frames[i].function, "PyInit_", 7))
            return 0;
    return 1;
}

/* The allocator is the innermost frames: the function that called malloc and the one or two
 * wrappers it is called through. */
#define ROLE_FRAMES 3

int tp_site_role(const struct tp_site *s)
{
    for (size_t i = 0; i < s->nframes && i < ROLE_FRAMES; i++) {
        if (torch_allocator(s->frames[i].function))
            return TP_ROLE_TORCH;
        if (numpy_allocator(&s->frames[i]))
            return TP_ROLE_NUMPY;
    }
    return numpy_stripped_data(s) ? TP_ROLE_NUMPY : TP_ROLE_NONE;
}

/* The interpreter's own code: libpython, or an executable that links it in (Debian's
 * /usr/bin/python3.11, pyenv's bin/python3.11: "python" and a version). */
static int interpreter_module(const char *m)
{
    const char *b = tp_base_name(m, "");
    if (!strncmp(b, "libpython", 9))
        return 1;
    if (strncmp(b, "python", 6))
        return 0;
    for (b += 6; *b; b++)
        if (!((*b >= '0' && *b <= '9') || *b == '.' || *b == 'd' || *b == 'm' || *b == 'u'))
            return 0;
    return 1;
}

/* An extension module installed for the interpreter: under a site-packages or dist-packages
 * directory, or with the system's libraries (Debian's torch). */
static int installed_module(const char *m)
{
    return m &&
           (tp_in_system_dir(m, 0) || strstr(m, "/site-packages/") || strstr(m, "/dist-packages/"));
}

/* The interpreter allocated it: its allocating frame, past the C library and the loader it may
 * have called (strdup, the TLS of a thread it started), is the interpreter's (PyObject_Malloc,
 * _PyObject_GC_New, PyMem_*); or an extension module's import (PyInit_*) did, whose state the
 * interpreter keeps with the module; or the interpreter's innermost call out of its own code was
 * into an installed extension module: a package's tables (torch registers thousands of
 * functions' records when its Python code first calls it), which live as long as the module,
 * and the interpreter never unloads a module nor frees its state at exit. When that call went
 * into an extension that is not installed (the program's own, built beside it), the memory is
 * the program's, whatever that extension called in turn: its leaks are the user's to fix. */
int tp_site_in_interpreter(const struct tp_site *s)
{
    for (size_t i = 0; i < s->nframes; i++)
        if (s->frames[i].function && !strncmp(s->frames[i].function, "PyInit_", 7))
            return 1;
    for (size_t i = 0; i < s->nframes; i++) {
        const char *m = s->frames[i].module;
        if (m && (is_loader(m) || !strncmp(tp_base_name(m, ""), "libc.so", 7)))
            continue;
        if (!m || interpreter_module(m))
            return m != NULL;
        break;
    }
    for (size_t j = 1; j < s->nframes; j++)
        if (s->frames[j].module && interpreter_module(s->frames[j].module))
            return installed_module(s->frames[j - 1].module);
    return 0;
}

static int any_interpreter_frame(const struct tp_site *s)
{
    for (size_t i = 0; i < s->nframes; i++)
        if (s->frames[i].module && interpreter_module(s->frames[i].module))
            return 1;
    return 0;
}

void tp_sites_classify(struct tp_site *v, size_t n)
{
    int interp = 0;
    for (size_t i = 0; i < n && !interp; i++)
        interp = any_interpreter_frame(&v[i]);
    for (size_t i = 0; i < n; i++) {
        struct tp_site *s = &v[i];
        if (!s->role)
            s->role = tp_site_role(s);
        /* A framework's tensors are the program's data, wherever the framework lives. */
        s->system |= !s->role && tp_site_system(s);
        /* Under an interpreter, a tensor is a Python object's storage (its stack may end inside
         * the framework, TPROF_STACK frames deep): what is left at exit is the interpreter's. */
        s->interpreter |= !s->system && (tp_site_in_interpreter(s) || (interp && s->role));
    }
}

int tp_site_system(const struct tp_site *s)
{
    if (tp_site_system_only(s))
        return 1;
    size_t n = system_run(s);
    for (size_t i = 0; i < n; i++) {
        const struct tp_frame *f = &s->frames[i];
        if (is_loader(f->module) || is_keeping_runtime(f->module) || libc_keeper(f->function))
            return 1;
    }
    return 0;
}

/* "libgfortran" from "/usr/lib/x86_64-linux-gnu/libgfortran.so.5.0.0". */
static void lib_name(const char *m, char *out, size_t n)
{
    const char *b = tp_base_name(m, "");
    const char *so = strstr(b, ".so");
    size_t len = so ? (size_t)(so - b) : strlen(b);
    if (len >= n)
        len = n - 1;
    memcpy(out, b, len);
    out[len] = 0;
}

void tp_site_system_what(const struct tp_site *s, char *out, size_t n)
{
    size_t run = s->nframes ? system_run(s) : 0;
    const char *libc_what = NULL;
    int loader = 0, tls = 0;
    for (size_t i = 0; i < run; i++) {
        const struct tp_frame *f = &s->frames[i];
        if (!libc_what)
            libc_what = libc_keeper(f->function);
        loader |= is_loader(f->module);
        tls |= is_loader(f->module) && loader_tls(f->function);
    }
    if (libc_what) {
        snprintf(out, n, "%s", libc_what);
        return;
    }
    if (tls) {
        snprintf(out, n, "ld.so TLS");
        return;
    }
    /* The first library in the stack that is neither libc nor the loader: the one whose
     * constructor or call it was (libquadmath registering its printf types through libc). */
    for (size_t i = 0; i < run; i++) {
        const char *m = s->frames[i].module;
        if (!m || is_loader(m) || !strncmp(tp_base_name(m, ""), "libc.so", 7))
            continue;
        lib_name(m, out, n);
        return;
    }
    snprintf(out, n, "%s", loader ? "ld.so" : "libc");
}

void tp_leak_split(const struct tp_memory *m, struct tp_leak_split *o)
{
    memset(o, 0, sizeof *o);
    o->system_bytes = m->live_at_exit_system_bytes;
    o->system_allocs = m->live_at_exit_system_allocs;
    o->suppressed_bytes = m->live_at_exit_suppressed_bytes;
    o->suppressed_allocs = m->live_at_exit_suppressed_allocs;
    o->interpreter_bytes = m->live_at_exit_interpreter_bytes;
    o->interpreter_allocs = m->live_at_exit_interpreter_allocs;
    o->program_bytes = m->live_at_exit_program_bytes;
    o->program_allocs = m->live_at_exit_program_allocs;
    if (o->system_bytes + o->suppressed_bytes + o->interpreter_bytes + o->program_bytes == 0 &&
        m->live_at_exit_bytes) {
        /* A report from before the split: what its sites say, the rest is the program's. */
        for (size_t i = 0; i < m->nsites; i++) {
            const struct tp_site *s = &m->sites[i];
            if (s->suppressed) {
                o->suppressed_bytes += s->live_at_exit_bytes;
                o->suppressed_allocs += s->live_at_exit_allocs;
            } else if (s->system) {
                o->system_bytes += s->live_at_exit_bytes;
                o->system_allocs += s->live_at_exit_allocs;
            } else if (s->interpreter) {
                o->interpreter_bytes += s->live_at_exit_bytes;
                o->interpreter_allocs += s->live_at_exit_allocs;
            }
        }
        uint64_t kb = o->system_bytes + o->suppressed_bytes + o->interpreter_bytes;
        uint64_t kn = o->system_allocs + o->suppressed_allocs + o->interpreter_allocs;
        o->program_bytes = m->live_at_exit_bytes > kb ? m->live_at_exit_bytes - kb : 0;
        o->program_allocs = m->live_at_exit_allocs > kn ? m->live_at_exit_allocs - kn : 0;
    }
    for (size_t i = 0; i < m->nsites; i++)
        o->suppressed_sites += m->sites[i].suppressed && m->sites[i].live_at_exit_bytes;
}

/* A report from before the interpreter's split counted its sites in the program's figure: move
 * them over, so that the LEAKS rows and the figures agree. */
static void split_interpreter(struct tp_memory *m)
{
    uint64_t b = 0, n = 0;
    if (m->live_at_exit_interpreter_bytes || !m->live_at_exit_program_bytes)
        return;
    for (size_t i = 0; i < m->nsites; i++) {
        const struct tp_site *s = &m->sites[i];
        if (s->interpreter && !s->system && !s->suppressed) {
            b += s->live_at_exit_bytes;
            n += s->live_at_exit_allocs;
        }
    }
    b = b < m->live_at_exit_program_bytes ? b : m->live_at_exit_program_bytes;
    n = n < m->live_at_exit_program_allocs ? n : m->live_at_exit_program_allocs;
    m->live_at_exit_program_bytes -= b;
    m->live_at_exit_program_allocs -= n;
    m->live_at_exit_interpreter_bytes = b;
    m->live_at_exit_interpreter_allocs = n;
}

void tp_memory_classify(struct tp_memory *m)
{
    tp_sites_classify(m->sites, m->nsites);
    split_interpreter(m);
    struct tp_leak_split ls;
    tp_leak_split(m, &ls);
    m->live_at_exit_program_bytes = ls.program_bytes;
    m->live_at_exit_program_allocs = ls.program_allocs;
    m->live_at_exit_system_bytes = ls.system_bytes;
    m->live_at_exit_system_allocs = ls.system_allocs;
    m->live_at_exit_suppressed_bytes = ls.suppressed_bytes;
    m->live_at_exit_suppressed_allocs = ls.suppressed_allocs;
    m->live_at_exit_interpreter_bytes = ls.interpreter_bytes;
    m->live_at_exit_interpreter_allocs = ls.interpreter_allocs;
}

int tp_site_system_only(const struct tp_site *s)
{
    if (s->nframes == 0)
        return 0;
    for (size_t i = 0; i < s->nframes; i++)
        if (!tp_in_system_dir(s->frames[i].module, 0))
            return 0;
    return 1;
}
