/* What this machine is, for the figures measured on it (see common/machine/machine.h). */
#include "common/machine/machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "common/out/out.h"

int tp_cache_file(const char *kind, char *out, size_t n)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !host[0])
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    for (char *s = host; *s; s++)
        if (*s == '/' || (unsigned char)*s < 0x21)
            *s = '_';
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (x && *x == '/')
        w = snprintf(out, n, "%s/tprof/%s-%s", x, kind, host);
    else if (home && *home == '/')
        w = snprintf(out, n, "%s/.cache/tprof/%s-%s", home, kind, host);
    else
        return -1;
    return w > 0 && (size_t)w < n ? 0 : -1;
}

int tp_cache_dirs(const char *path)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = tmp + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

/* Spaces at either end dropped and runs of them made one (the CPUID brand string is padded). */
static void squeeze(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        unsigned char ch = (unsigned char)*r;
        if (ch < 0x20 || ch >= 0x7f)
            ch = ' ';
        if (ch == ' ' && (w == s || w[-1] == ' '))
            continue;
        *w++ = (char)ch;
    }
    while (w > s && w[-1] == ' ')
        w--;
    *w = 0;
}

/* The first "model name" (x86), "Processor" or "cpu model" line of /proc/cpuinfo. */
static void cpuinfo_model(char *out, size_t n)
{
    static const char *const keys[] = {"model name", "Processor", "cpu model"};
    char buf[4096];
    if (tp_read_small("/proc/cpuinfo", buf, sizeof buf) <= 0)
        return;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        for (char *line = buf; line;) {
            char *nl = strchr(line, '\n'), *colon = strchr(line, ':');
            if (!strncmp(line, keys[k], strlen(keys[k])) && colon && (!nl || colon < nl)) {
                if (nl)
                    *nl = 0;
                snprintf(out, n, "%s", colon + 1);
                return;
            }
            line = nl ? nl + 1 : NULL;
        }
    }
}

void tp_cpu_model(char *out, size_t n)
{
    if (!n)
        return;
    out[0] = 0;
#if defined(__x86_64__) || defined(__i386__)
    unsigned r[12], max = __get_cpuid_max(0x80000000, NULL);
    if (max >= 0x80000004 && n > 48) {
        for (unsigned i = 0; i < 3; i++)
            __get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
        memcpy(out, r, 48);
        out[48] = 0;
    }
#endif
    if (!out[0])
        cpuinfo_model(out, n);
    squeeze(out);
}
