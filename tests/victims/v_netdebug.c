/* Allocates from a stripped library (argv[1], tests/victims/libtpnodebug.so), so that the report's
 * sites have a frame whose module has no debug information on this machine, and exits. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    void *(*alloc)(size_t) = h ? (void *(*)(size_t))dlsym(h, "tpnodebug_alloc") : NULL;
    if (!alloc) {
        fprintf(stderr, "v_netdebug: %s\n", dlerror());
        return 1;
    }
    void *p = alloc(4096);
    printf("%s\n", p ? "allocated" : "no memory");
    free(p);
    return 0;
}
