/* Loads a BLAS-using plugin (argv[1]) with RTLD_LOCAL, as a Python extension or an inference
 * engine's backend plugin is loaded, and runs it. This program itself is not linked to a BLAS. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: v_blas_plugin PLUGIN.so\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "v_blas_plugin: %s\n", dlerror());
        return 1;
    }
    double (*run)(int) = (double (*)(int))dlsym(h, "plug_run");
    if (!run) {
        fprintf(stderr, "v_blas_plugin: no plug_run\n");
        return 1;
    }
    printf("plugin %.4f\n", run(5));
    return 0;
}
