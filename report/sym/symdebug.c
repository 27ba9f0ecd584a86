/* Separate debug files for the reporter's symboliser (report/sym/symbolize.c).
 *
 * Separate debug files are looked for on this machine only, unless TPROF_DEBUGINFOD=1. libdwfl's
 * standard search (dwfl_standard_find_debuginfo) ends by asking every server in DEBUGINFOD_URLS
 * (set by default on Debian, Ubuntu and Fedora) for each module it found nothing for: a
 * download, or a wait for a server that does not answer, at every report. With
 * TPROF_DEBUGINFOD=1 those servers are asked, through libdebuginfod, loaded on first use. */
#include "report/sym/symdebug.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tp_sym_debuginfod;

/* ---- separate debug files, from this machine only ---- */

/* The CRC-32 a .gnu_debuglink section records for its debug file (that of zlib and gzip). */
static uint32_t file_crc32(int fd, int *ok)
{
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    unsigned char buf[16384];
    uint32_t crc = 0xFFFFFFFFu;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            crc = table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
    *ok = n == 0;
    return crc ^ 0xFFFFFFFFu;
}

/* fd when path is the debug file sought: another file than the module's own, with the CRC the
 * debuglink records (0: an alternate file, which carries no CRC). Else -1, fd closed. */
static int check_candidate(const char *path, const struct stat *main_st, uint32_t crc)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    int ok = 1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (main_st && st.st_dev == main_st->st_dev && st.st_ino == main_st->st_ino) ||
        (crc && (file_crc32(fd, &ok) != crc || !ok)) || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- debuginfod, when asked for ---- */

typedef struct debuginfod_client debuginfod_client;
static struct {
    int tried;
    debuginfod_client *client;
    debuginfod_client *(*begin)(void);
    int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
    void (*end)(debuginfod_client *);
} dbgd;

/* The debug file of mod from the DEBUGINFOD_URLS servers, by its build-id; -1 without one.
 * libdebuginfod is loaded on the first call, and stays (libcurl's libraries are not made to be
 * unloaded). Its own variables apply: DEBUGINFOD_TIMEOUT, DEBUGINFOD_CACHE_PATH... */
static int ask_debuginfod(Dwfl_Module *mod, char **debuginfo_file_name)
{
    const unsigned char *id = NULL;
    GElf_Addr at;
    int n = dwfl_module_build_id(mod, &id, &at);
    if (n <= 0)
        return -1;
    if (!dbgd.tried) {
        dbgd.tried = 1;
        void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            dbgd.begin = (debuginfod_client * (*)(void)) dlsym(h, "debuginfod_begin");
            dbgd.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int,
                                           char **))dlsym(h, "debuginfod_find_debuginfo");
            dbgd.end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
            if (dbgd.begin && dbgd.find_debuginfo && dbgd.end)
                dbgd.client = dbgd.begin();
        } else {
            fprintf(stderr, "tprof: TPROF_DEBUGINFOD=1: libdebuginfod.so.1: %s; no server asked\n",
                    dlerror());
        }
    }
    if (!dbgd.client)
        return -1;
    char *path = NULL;
    int fd = dbgd.find_debuginfo(dbgd.client, id, n, &path);
    if (fd < 0) {
        free(path);
        return -1;
    }
    /* the name is freed by libdwfl, with its own libc */
    char *name = NULL;
    if (path) {
        size_t len = strlen(path) + 1;
        name = malloc(len);
        if (name)
            memcpy(name, path, len);
        free(path);
    }
    *debuginfo_file_name = name;
    return fd;
}

/* Dwfl_Callbacks.find_debuginfo: the build-id directory under /usr/lib/debug (libdwfl's own
 * search, which never asks a server), then the .gnu_debuglink name beside the file, in its .debug
 * directory, and under /usr/lib/debug: what dwfl_standard_find_debuginfo tries before debuginfod.
 * Then, with TPROF_DEBUGINFOD=1 only, the servers (not for a dwz alternate file, asked for with
 * its name and no CRC: it has a build-id of its own, which only libdwfl knows). The name returned
 * is freed by libdwfl, so it comes from libdwfl's own malloc. */
int tp_sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    if (!debuglink_file || !*debuglink_file)
        return tp_sym_debuginfod ? ask_debuginfod(mod, debuginfo_file_name) : -1;
    struct stat main_st;
    int have_main = file_name && stat(file_name, &main_st) == 0;
    char dir[4096], path[4096 + 64];
    dir[0] = 0;
    if (file_name && file_name[0] == '/') {
        const char *slash = strrchr(file_name, '/');
        size_t n = (size_t)(slash - file_name);
        if (n < sizeof dir) {
            memcpy(dir, file_name, n);
            dir[n] = 0;
        }
    }
    for (int i = 0; i < 3 && fd < 0; i++) {
        int w;
        if (debuglink_file[0] == '/') {
            if (i > 0)
                break;
            w = snprintf(path, sizeof path, "%s", debuglink_file);
        } else if (!dir[0]) {
            break; /* a module without a directory: nowhere to look */
        } else if (i == 0) {
            w = snprintf(path, sizeof path, "%s/%s", dir, debuglink_file);
        } else if (i == 1) {
            w = snprintf(path, sizeof path, "%s/.debug/%s", dir, debuglink_file);
        } else {
            w = snprintf(path, sizeof path, "/usr/lib/debug%s/%s", dir, debuglink_file);
        }
        if (w < 0 || (size_t)w >= sizeof path)
            continue;
        fd = check_candidate(path, have_main ? &main_st : NULL, debuglink_crc);
    }
    if (fd >= 0) {
        size_t len = strlen(path) + 1;
        char *name = malloc(len);
        if (name)
            memcpy(name, path, len);
        *debuginfo_file_name = name;
    } else if (tp_sym_debuginfod && debuglink_crc != 0) {
        fd = ask_debuginfod(mod, debuginfo_file_name);
    }
    return fd;
}
