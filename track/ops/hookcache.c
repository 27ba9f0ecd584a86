/* The host's best hook cost (see track/ops/hookcache.h). */
#include "track/ops/hookcache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/machine/machine.h"
#include "common/out/out.h"

#define MAGIC "tprof-hook 1"

int tp_hookcache_path(char *out, size_t n)
{
    return tp_cache_file("hook", out, n);
}

/* A "key value" line's value into h: 1 when the key is known and the value valid, 0 for a key
 * from a later tprof, -1 when not valid. */
static int parse_line(char *line, struct tp_hookcache *h)
{
    char *sp = strchr(line, ' ');
    if (!sp || sp == line || !sp[1])
        return -1;
    *sp = 0;
    const char *v = sp + 1;
    if (!strcmp(line, "hook_ns")) {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(d) || d <= 0 || d > 1e6)
            return -1;
        h->hook_ns = d;
    } else if (!strcmp(line, "cpu_model")) {
        snprintf(h->cpu_model, sizeof h->cpu_model, "%s", strcmp(v, "-") ? v : "");
    } else if (!strcmp(line, "date")) {
        snprintf(h->date, sizeof h->date, "%s", v);
    } else {
        return 0;
    }
    return 1;
}

int tp_hookcache_load(const char *path, struct tp_hookcache *h)
{
    memset(h, 0, sizeof *h);
    char buf[1024];
    ssize_t len = tp_read_small(path, buf, sizeof buf);
    /* a file that filled the buffer may have been cut short; one with no newline at its end is
     * half a write */
    if (len <= 0 || (size_t)len >= sizeof buf - 1 || buf[len - 1] != '\n' ||
        memchr(buf, 0, (size_t)len))
        return -1;
    char *nl = strchr(buf, '\n');
    *nl = 0;
    if (strcmp(buf, MAGIC) != 0)
        return -1;
    for (char *line = nl + 1; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        if (*line && parse_line(line, h) < 0) {
            memset(h, 0, sizeof *h);
            return -1;
        }
    }
    return h->hook_ns > 0 ? 0 : -1;
}

int tp_hookcache_save(const char *path, const struct tp_hookcache *h)
{
    char buf[256], model[64];
    /* one line each: a control character would end the line early */
    snprintf(model, sizeof model, "%s", h->cpu_model[0] ? h->cpu_model : "-");
    for (char *s = model; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
    int w = snprintf(buf, sizeof buf, MAGIC "\nhook_ns %.3f\ncpu_model %s\ndate %s\n", h->hook_ns,
                     model, h->date[0] ? h->date : "-");
    if (w <= 0 || (size_t)w >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (tp_cache_dirs(path) < 0)
        return -1;
    return tp_write_file(path, buf, (size_t)w, NULL);
}
