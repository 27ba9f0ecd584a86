/* Libraries loaded while the program runs: dlopen("libtpop_user.so") by bare name (found through
 * this program's DT_RUNPATH, $ORIGIN), whose code calls libtpop.so's tpop_gemm through its PLT.
 * Also a call through dlsym(handle, "tpop_gemm"), which no PLT hook can see, and a dlclose and a
 * second load; both libraries must really be unloaded by dlclose. argv[1]: "deepbind" adds
 * RTLD_DEEPBIND, "lazy" loads with RTLD_LAZY; "global" runs global() instead. Figures in
 * tests/plt_dlopen.sh. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef float (*run_fn)(int);
typedef void (*gemm_fn)(int, int, int, int, int, float, float *, int, float *, int, float,
                        float *, int);

/* libtpop.so loaded RTLD_GLOBAL, then a plugin that uses it without depending on it, loaded
 * lazily. Its first call binds its slot (and so makes libtpop.so its dependency): the dlclose of
 * libtpop.so that follows must not unload it, and the second call must work. */
static int global(void)
{
    void *lib = dlopen("libtpop.so", RTLD_NOW | RTLD_GLOBAL);
    void *plug = lib ? dlopen("libtpop_free.so", RTLD_LAZY | RTLD_LOCAL) : NULL;
    if (!plug) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    float (*run)(void) = (float (*)(void))dlsym(plug, "tpop_free_run");
    if (!run)
        return 1;
    float s = run();
    dlclose(lib);
    s += run();
    printf("global %.1f\n", s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "global"))
        return global();
    int mode = RTLD_NOW | RTLD_LOCAL, unloaded = 0;
    if (argc > 1 && !strcmp(argv[1], "deepbind"))
        mode |= RTLD_DEEPBIND;
    if (argc > 1 && !strcmp(argv[1], "lazy"))
        mode = RTLD_LAZY | RTLD_LOCAL;
    double total = 0;
    for (int round = 0; round < 2; round++) {
        void *h = dlopen("libtpop_user.so", mode);
        if (!h) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        run_fn run = (run_fn)dlsym(h, "tpop_user_run");
        gemm_fn gemm = (gemm_fn)dlsym(h, "tpop_gemm"); /* found in its dependency libtpop.so */
        if (!run || !gemm) {
            fprintf(stderr, "dlsym: %s\n", dlerror());
            return 1;
        }
        total += run(7 + round); /* 7, then 8 calls of tpop_gemm through the plugin's PLT */
        float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0};
        gemm(0, 0, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2); /* straight through the handle */
        total += c[0] + c[3];
        if (dlclose(h) != 0) {
            fprintf(stderr, "dlclose: %s\n", dlerror());
            return 1;
        }
        unloaded += !dlopen("libtpop_user.so", RTLD_LAZY | RTLD_NOLOAD) &&
                    !dlopen("libtpop.so", RTLD_LAZY | RTLD_NOLOAD);
    }
    printf("total %.1f unloaded %d\n", total, unloaded);
    return 0;
}
