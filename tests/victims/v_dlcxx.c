/* A C program that loads a C++ library (argv[1]) RTLD_LOCAL and calls into it: the C++ runtime is
 * then loaded but not in the global scope. Prints "ok <n>". */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    int (*run)(int) = (int (*)(int))dlsym(h, "cxa_run");
    if (!run)
        return 1;
    printf("ok %d\n", run(100));
    return 0;
}
