/* What a program sees of the libraries loaded in its own namespace: for each library tprof once
 * brought in (elfutils, its compressors, libunwind, libm), whether RTLD_NOLOAD finds it before the
 * program loads anything; then libz loaded and unloaded, and whether it is still there. Linked
 * against libc alone, so every "loaded" would be somebody else's doing. The output must be the
 * same with and without tprof. */
#include <dlfcn.h>
#include <stdio.h>

static const char *names[] = {
    "libz.so.1",     "liblzma.so.5",     "libbz2.so.1.0",      "libzstd.so.1", "libelf.so.1",
    "libdw.so.1",    "libunwind.so.8",   "libm.so.6",          "libdebuginfod.so.1",
    "libcurl.so.4",  "libcurl-gnutls.so.4",
};

static const char *state(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return "absent";
    dlclose(h); /* RTLD_NOLOAD took a reference */
    return "loaded";
}

int main(void)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        printf("before: %s %s\n", names[i], state(names[i]));
    void *z = dlopen("libz.so.1", RTLD_NOW);
    printf("dlopen libz.so.1: %s\n", z ? "ok" : "failed");
    if (z)
        printf("dlclose libz.so.1: %d\n", dlclose(z));
    printf("after: libz.so.1 %s\n", state("libz.so.1"));
    return 0;
}
