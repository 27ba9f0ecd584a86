/* tests/heap_gone.sh: dlopen each plugin given and call its NAME(bytes) (which allocates and keeps
 * the block); then dlclose them all and, when asked, delete the plugin files, as a package upgrade
 * would.
 * Usage: v_dlgone [--unlink] PATH NAME BYTES [PATH NAME BYTES]... */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rm = argc > 1 && !strcmp(argv[1], "--unlink");
    void *h[8];
    int n = 0;
    /* All loaded before any is unloaded: each at addresses of its own (a module loaded where
     * an unloaded one was would make their frames ambiguous). */
    for (int i = 1 + rm; i + 2 < argc && n < 8; i += 3, n++) {
        h[n] = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        if (!h[n]) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
        void *(*keep)(size_t) = (void *(*)(size_t))dlsym(h[n], argv[i + 1]);
        if (!keep || !keep((size_t)atol(argv[i + 2])))
            return 1;
    }
    while (n > 0)
        dlclose(h[--n]);
    for (int i = 1 + rm; rm && i + 2 < argc; i += 3)
        unlink(argv[i]);
    printf("plugins unloaded\n");
    return 0;
}
