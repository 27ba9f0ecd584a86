/* Calls BLAS functions that no loaded object defines: tprof's wrappers are the only definitions
 * (found through dlsym(RTLD_DEFAULT), as a program linked to a library that was later removed
 * would reach them). They must do nothing rather than crash. Then the BLAS (argv[1]) is loaded
 * RTLD_LOCAL, and the same wrappers must find it and compute. This program is not linked to a
 * BLAS. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef float (*sdot_fn)(int, const float *, int, const float *, int);

int main(int argc, char **argv)
{
    sgemm_fn gemm = (sgemm_fn)dlsym(RTLD_DEFAULT, "cblas_sgemm");
    sdot_fn dot = (sdot_fn)dlsym(RTLD_DEFAULT, "cblas_sdot");
    if (!gemm || !dot) {
        printf("no BLAS wrappers in this process\n");
        return 0;
    }
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 3; i++) {
        errno = 1234;
        gemm(101, 111, 111, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
        if (errno != 1234)
            printf("errno changed to %d\n", errno);
    }
    float d = dot(4, a, 1, b, 1) + dot(4, a, 1, b, 1);
    printf("before: c = %g %g %g %g, dot = %g\n", c[0], c[1], c[2], c[3], d);
    if (argc > 1 && !dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) {
        printf("cannot load %s\n", argv[1]);
        return 1;
    }
    gemm(101, 111, 111, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
    d = dot(4, a, 1, b, 1);
    printf("after: c = %g %g %g %g, dot = %g\n", c[0], c[1], c[2], c[3], d);
    return 0;
}
