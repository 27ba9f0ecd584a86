/* dlsym(RTLD_DEFAULT, "malloc") N times after 1000 first calls: what libtprof.so's dlsym trampoline
 * (preload/hook/hook_cuda.c) adds to a lookup of a name it does not answer. Run under callgrind
 * with --toggle-collect=storm at two N (bench/RESULTS.md, "GPU"). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static void storm(long n) { void *x = 0; for (long i = 0; i < n; i++) x = dlsym(RTLD_DEFAULT, "malloc"); if (!x) puts(""); }
int main(int c, char **v) { storm(1000); storm(atol(v[1])); return 0; }
