/* dlopen()s the name given, which need not exist, with RTLD_DEEPBIND (which tprof removes, with
 * a warning naming the file), then prints "ok". */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND) : NULL;
    if (h)
        dlclose(h);
    puts("ok");
    return 0;
}
