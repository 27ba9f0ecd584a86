/* dlopen/dlclose of a library that allocates: exact totals, names resolve or fall back to
 * module+offset after the library is gone, no crash. argv[1]: path of libtpdl.so. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *leak = NULL;
    for (int round = 0; round < 3; round++) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
        void *(*fn)(size_t) = (void *(*)(size_t))dlsym(h, "tpdl_alloc");
        void *p = fn(2500);
        if (round == 2)
            leak = p; /* leaked from a library that is unloaded below */
        else
            free(p);
        dlclose(h);
    }
    printf("ok %d\n", leak != NULL);
    return 0;
}
