/* Calls into a library of the program's own through versioned names and an alias (libtpnames.so),
 * from the program at start-up and from a plugin loaded with dlopen later (libtpnames_user.so).
 * argv: START DLOPEN, the rounds each makes (tpnames_calls.h); prints the sum of the results. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tpnames_calls.h"

int main(int argc, char **argv)
{
    int start = argc > 1 ? atoi(argv[1]) : 5, later = argc > 2 ? atoi(argv[2]) : 7;
    long s = tpnames_rounds(start);
    if (later > 0) {
        void *h = dlopen("libtpnames_user.so", RTLD_LAZY | RTLD_LOCAL);
        long (*run)(int) = h ? (long (*)(int))dlsym(h, "tpnu_run") : NULL;
        if (!run) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        s += run(later); /* through the handle: not hooked; its calls inside are */
    }
    printf("sum %ld\n", s);
    return 0;
}
