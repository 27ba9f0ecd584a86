/* Loads libtpld_a.so (argv[1], a path), whose dependencies' constructors must run in the order
 * the dynamic loader chooses, one of them calling dlopen(NULL) (tests/plt_loadorder.sh). argv[2]
 * "lazy" loads it RTLD_LAZY. Prints the constructors' order and what the library computes. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: v_loadorder LIBTPLD_A.so [lazy]\n");
        return 2;
    }
    int mode = (argc > 2 && !strcmp(argv[2], "lazy") ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL;
    void *h = dlopen(argv[1], mode);
    if (!h) {
        fprintf(stderr, "v_loadorder: %s\n", dlerror());
        return 1;
    }
    float (*run)(int) = (float (*)(int))dlsym(h, "tpld_run");
    if (!run)
        return 1;
    double s = 0;
    for (int r = 1; r <= 3; r++)
        s += run(r);
    const char *order = getenv("TPLD_ORDER");
    printf("order %s sum %.2f\n", order ? order : "?", s);
    dlclose(h);
    return 0;
}
