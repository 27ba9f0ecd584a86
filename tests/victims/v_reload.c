/* Loads a plugin N times from one path, replacing the file between loads with version 1 or 2 of
 * tests/victims/libtpreplug.c, as a program that reloads an updated library does
 * (tests/dl_reload.sh). argv: PATH V1.so V2.so N [global]; "global" loads it RTLD_GLOBAL |
 * RTLD_LAZY instead of RTLD_LOCAL | RTLD_NOW. Prints each load's result and how many times the
 * plugin's constructor ran. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int copy(const char *from, const char *to)
{
    char tmp[4096], buf[65536];
    snprintf(tmp, sizeof tmp, "%s.tmp", to);
    int in = open(from, O_RDONLY), out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    /* A new file under the old name, as installers do: the old mapping stays valid. */
    return in < 0 || out < 0 || n < 0 || rename(tmp, to) != 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: v_reload PATH V1.so V2.so N\n");
        return 2;
    }
    int n = atoi(argv[4]);
    int mode = argc > 5 && !strcmp(argv[5], "global") ? RTLD_LAZY | RTLD_GLOBAL : RTLD_NOW | RTLD_LOCAL;
    for (int i = 0; i < n; i++) {
        if (copy(argv[2 + i % 2], argv[1]) != 0) {
            fprintf(stderr, "v_reload: cannot copy to %s\n", argv[1]);
            return 1;
        }
        void *h = dlopen(argv[1], mode);
        if (!h) {
            fprintf(stderr, "v_reload: %s\n", dlerror());
            return 1;
        }
        double (*run)(void) = (double (*)(void))dlsym(h, "replug_run");
        if (!run)
            return 1;
        printf("load %d: %.1f\n", i + 1, run());
        dlclose(h);
    }
    const char *c = getenv("TPREPLUG_CTORS");
    printf("constructor runs %s\n", c ? c : "0");
    return 0;
}
