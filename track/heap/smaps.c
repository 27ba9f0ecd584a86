/* The kernel's account of the process's memory: /proc/self/smaps, one area of the address space
 * after another with what of it is resident, and /proc/self/statm's resident total (see
 * track/heap/heap.h). Read with open/read into a static buffer and parsed in place: no allocator,
 * as the reading may happen inside a hook of the program's free. Callers take turns (ledger.c's
 * flag). */
#include "track/heap/heap.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 16];

/* A number of kB after "Name:" at p (a line of smaps), in bytes. */
static uint64_t kb(const char *p)
{
    while (*p == ' ')
        p++;
    return strtoull(p, NULL, 10) * 1024;
}

/* The header of an area: "lo-hi perms offset dev inode   path". 0 when line is not one. */
static int header(const char *line, struct tp_vma *v)
{
    char *end;
    memset(v, 0, sizeof *v);
    v->lo = strtoull(line, &end, 16);
    if (*end != '-')
        return 0;
    v->hi = strtoull(end + 1, &end, 16);
    if (*end != ' ' || strlen(end) < 6)
        return 0;
    memcpy(v->perms, end + 1, 4);
    v->offset = strtoull(end + 6, &end, 16);
    /* dev, then inode, then the path (which may have spaces) after the padding */
    for (int field = 0; field < 2; field++) {
        while (*end == ' ')
            end++;
        while (*end && *end != ' ')
            end++;
    }
    while (*end == ' ')
        end++;
    size_t n = strlen(end);
    if (n >= sizeof v->path)
        n = sizeof v->path - 1;
    memcpy(v->path, end, n);
    v->path[n] = 0;
    return 1;
}

int tp_smaps_read(void (*fn)(void *ctx, const struct tp_vma *v), void *ctx)
{
    int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct tp_vma v;
    int have = 0;
    size_t used = 0;
    for (;;) {
        ssize_t k = read(fd, buf + used, sizeof buf - 1 - used);
        if (k <= 0)
            break;
        used += (size_t)k;
        buf[used] = 0;
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            if (!strncmp(line, "Rss:", 4))
                v.rss = kb(line + 4);
            else if (!strncmp(line, "Pss:", 4))
                v.pss = kb(line + 4);
            else if (line[0] >= 'A' && line[0] <= 'Z')
                ; /* another figure of the area */
            else {
                struct tp_vma next;
                if (header(line, &next)) {
                    if (have)
                        fn(ctx, &v);
                    v = next;
                    have = 1;
                }
            }
            line = nl + 1;
        }
        /* a line cut by the buffer's end goes to its start; one longer than the buffer is dropped */
        used = (size_t)(buf + used - line);
        if (used == sizeof buf - 1)
            used = 0;
        memmove(buf, line, used);
    }
    close(fd);
    if (have)
        fn(ctx, &v);
    return have ? 0 : -1;
}

uint64_t tp_statm_rss(void)
{
    char s[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t k = read(fd, s, sizeof s - 1);
    close(fd);
    if (k <= 0)
        return 0;
    s[k] = 0;
    char *end;
    strtoull(s, &end, 10); /* size, then resident */
    long page = sysconf(_SC_PAGESIZE);
    return strtoull(end, NULL, 10) * (uint64_t)(page > 0 ? page : 4096);
}
