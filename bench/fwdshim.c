/* The cheapest interposer there is, to set tprof's cost against (bench/callgrind_pair.sh,
 * bench/run_real.sh): malloc, free, calloc and realloc forwarded to the next definition with no
 * work of their own. dlsym's own calloc, made before the real one is known, is served from a
 * static buffer. Built by the scripts that use it: cc -O2 -shared -fPIC bench/fwdshim.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static _Alignas(16) char boot[4096];
static size_t boot_used;

static void resolve(void)
{
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    next_free = dlsym(RTLD_NEXT, "free");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
}

void *malloc(size_t n)
{
    if (!next_malloc)
        resolve();
    return next_malloc(n);
}

void free(void *p)
{
    if ((char *)p >= boot && (char *)p < boot + sizeof boot)
        return;
    if (!next_free)
        resolve();
    next_free(p);
}

void *calloc(size_t n, size_t m)
{
    if (!next_calloc) {
        static int resolving;
        if (resolving) { /* dlsym's own: zeroed static memory */
            size_t b = (n * m + 15) & ~(size_t)15;
            if (boot_used + b > sizeof boot)
                return NULL;
            boot_used += b;
            return boot + boot_used - b;
        }
        resolving = 1;
        resolve();
    }
    return next_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    if (!next_realloc)
        resolve();
    return next_realloc(p, n);
}
