/* A plugin whose BLAS is unloaded and loaded again: as an application reloads a model backend.
 * argv[1] is the reference BLAS, argv[2] the plugin (tests/victims/libtpblasplug.c, which needs
 * libblas.so.3). The reference BLAS is loaded first, RTLD_LOCAL, so that the plugin's libblas.so.3
 * is that one; both are then closed, which unloads it, and the plugin is loaded again: its
 * libblas.so.3 is now whatever the system provides. A BLAS wrapper that kept calling the first
 * library's function would jump into unmapped memory. This program is not linked to a BLAS. */
#include <dlfcn.h>
#include <stdio.h>

static int run_plugin(const char *path)
{
    void *p = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p) {
        fprintf(stderr, "v_blas_reload: %s\n", dlerror());
        return 1;
    }
    double (*run)(int) = (double (*)(int))dlsym(p, "plug_run");
    if (!run) {
        fprintf(stderr, "v_blas_reload: no plug_run\n");
        return 1;
    }
    printf("plugin %.4f\n", run(5));
    dlclose(p);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: v_blas_reload REFERENCE_BLAS PLUGIN.so\n");
        return 2;
    }
    void *ref = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!ref) {
        fprintf(stderr, "v_blas_reload: %s\n", dlerror());
        return 1;
    }
    if (run_plugin(argv[2]))
        return 1;
    dlclose(ref);
    return run_plugin(argv[2]);
}
