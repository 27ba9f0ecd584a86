#include "common/out/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(char *out, size_t n, size_t *len, const char *s, size_t k)
{
    if (*len + k + 1 > n)
        return -1;
    memcpy(out + *len, s, k);
    *len += k;
    out[*len] = 0;
    return 0;
}

int tp_path_expand(const char *tmpl, const struct tp_path_ctx *ctx, char *out, size_t n)
{
    size_t len = 0;
    int has_pid = 0;
    char num[32];
    if (n == 0)
        return -1;
    out[0] = 0;
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            if (put(out, n, &len, p, 1) < 0)
                goto toolong;
            continue;
        }
        p++;
        switch (*p) {
        case 'p':
            has_pid = 1;
            snprintf(num, sizeof num, "%ld", ctx->pid);
            if (put(out, n, &len, num, strlen(num)) < 0)
                goto toolong;
            break;
        case 'r':
            snprintf(num, sizeof num, "%ld", ctx->rank);
            if (put(out, n, &len, num, strlen(num)) < 0)
                goto toolong;
            break;
        case 'h': {
            const char *h = ctx->host ? ctx->host : "localhost";
            if (put(out, n, &len, h, strlen(h)) < 0)
                goto toolong;
            break;
        }
        case '%':
            if (put(out, n, &len, "%", 1) < 0)
                goto toolong;
            break;
        default:
            snprintf(out, n, "unknown %%-sequence '%%%c' (use %%p, %%r, %%h or %%%%)",
                     *p ? *p : ' ');
            return -1;
        }
    }
    /* Insert the uniqueness suffix before the extension of the last path component. */
    char suffix[128] = "";
    size_t sl = 0;
    if (ctx->add_pid && !has_pid)
        sl += (size_t)snprintf(suffix + sl, sizeof suffix - sl, ".%ld", ctx->pid);
    if (ctx->image && ctx->image[0])
        sl += (size_t)snprintf(suffix + sl, sizeof suffix - sl, ".%.63s", ctx->image);
    /* An on-demand report cannot know whether this image will exec: numbered by image, the
     * reports of two images of one process stay apart. */
    if (ctx->image_seq > 0 && ctx->sig_seq > 0)
        sl += (size_t)snprintf(suffix + sl, sizeof suffix - sl, ".exec%d", ctx->image_seq);
    if (ctx->sig_seq > 0)
        sl += (size_t)snprintf(suffix + sl, sizeof suffix - sl, ".sig%d", ctx->sig_seq);
    if (sl) {
        char *slash = strrchr(out, '/');
        char *base = slash ? slash + 1 : out;
        char *dot = strrchr(base, '.');
        size_t at = (dot && dot != base) ? (size_t)(dot - out) : len;
        if (len + sl + 1 > n)
            goto toolong;
        memmove(out + at + sl, out + at, len - at + 1);
        memcpy(out + at, suffix, sl);
    }
    return 0;
toolong:
    snprintf(out, n, "path too long");
    return -1;
}

long tp_mpi_rank(const char *(*get)(const char *))
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = get(vars[i]);
        if (v && *v) {
            char *end;
            long r = strtol(v, &end, 10);
            if (!*end && r >= 0)
                return r;
        }
    }
    return 0;
}

const char *tp_base_name(const char *path, const char *none)
{
    if (!path)
        return none;
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int tp_in_system_dir(const char *path, int with_programs)
{
    static const char *const libs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"};
    static const char *const programs[] = {"/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/",
                                           "/usr/libexec/"};
    if (!path)
        return 0;
    for (size_t d = 0; d < sizeof libs / sizeof libs[0]; d++)
        if (!strncmp(path, libs[d], strlen(libs[d])))
            return 1;
    for (size_t d = 0; with_programs && d < sizeof programs / sizeof programs[0]; d++)
        if (!strncmp(path, programs[d], strlen(programs[d])))
            return 1;
    return 0;
}
