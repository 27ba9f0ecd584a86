#include "peaks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tp_peaks_cache_path(char *out, size_t n)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (x && *x == '/')
        w = snprintf(out, n, "%s/tprof/peaks-%s", x, host);
    else if (home && *home)
        w = snprintf(out, n, "%s/.cache/tprof/peaks-%s", home, host);
    else
        return -1;
    return w > 0 && (size_t)w < n ? 0 : -1;
}

int tp_peaks_load(const char *path, struct tp_peaks *p)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[700];
    int ok = fgets(line, sizeof line, f) && !strcmp(line, "tprof-peaks 1\n");
    while (ok && fgets(line, sizeof line, f)) {
        char key[32], val[600];
        if (sscanf(line, "%31s %599[^\n]", key, val) != 2)
            continue;
        char *end;
        if (!strcmp(key, "peak_gflops"))
            p->gflops = strtod(val, &end);
        else if (!strcmp(key, "peak_gflops_1t"))
            p->gflops_1t = strtod(val, &end);
        else if (!strcmp(key, "peak_gbps"))
            p->gbps = strtod(val, &end);
        else if (!strcmp(key, "blas"))
            snprintf(p->blas, sizeof p->blas, "%.511s", val);
        else if (!strcmp(key, "date"))
            snprintf(p->date, sizeof p->date, "%.63s", val);
    }
    fclose(f);
    if (!ok || !(p->gflops > 0 && p->gflops < 1e7) || !(p->gbps > 0 && p->gbps < 1e6)) {
        fprintf(stderr, "tprof: %s: not a valid peaks cache; ignoring it (run `tprof calibrate`)\n",
                path);
        memset(p, 0, sizeof *p);
        return -1;
    }
    return 0;
}

static int mkdirs(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
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

int tp_peaks_save(const char *path, const struct tp_peaks *p)
{
    char tmp[1100];
    if (mkdirs(path) < 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    fprintf(f, "tprof-peaks 1\npeak_gflops %.3f\npeak_gflops_1t %.3f\npeak_gbps %.3f\nblas %s\ndate %s\n",
            p->gflops, p->gflops_1t, p->gbps, p->blas[0] ? p->blas : "-", p->date[0] ? p->date : "-");
    if (fclose(f) != 0 || rename(tmp, path) < 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps, int allow_quick)
{
    char path[1024], src[1100];
    struct tp_peaks p;
    free(m->source);
    m->source = NULL;
    m->peak_gflops = env_gflops;
    m->peak_gbps = env_gbps;
    if (env_gflops > 0 && env_gbps > 0) {
        m->source = strdup("env");
        return 0;
    }
    if (tp_peaks_cache_path(path, sizeof path) == 0 && tp_peaks_load(path, &p) == 0) {
        if (m->peak_gflops <= 0)
            m->peak_gflops = p.gflops;
        if (m->peak_gbps <= 0)
            m->peak_gbps = p.gbps;
        snprintf(src, sizeof src, "%scache:%s", env_gflops > 0 || env_gbps > 0 ? "env+" : "", path);
        m->source = strdup(src);
        return 0;
    }
    /* Quick calibration: about 250 ms, never cached (`tprof calibrate` measures the BLAS). */
    if (allow_quick && m->peak_gflops <= 0)
        m->peak_gflops = tp_calib_fma(0.1);
    if (allow_quick && m->peak_gbps <= 0)
        m->peak_gbps = tp_calib_gbps(0.1, 32u << 20);
    if (m->peak_gflops > 0 && m->peak_gbps > 0) {
        m->source = strdup(env_gflops > 0 || env_gbps > 0 ? "env+quick" : "quick");
        return 0;
    }
    m->peak_gflops = m->peak_gbps = 0;
    m->source = strdup("none");
    return -1;
}
