/* The loaded modules (see track/sym/sym.h). */
#include "track/sym/sym.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "track/rawalloc.h"

/* ---- the walk ---- */

struct walk {
    int (*fn)(const struct tp_module *m, void *arg);
    void *arg;
};

static int segment_maps(const struct dl_phdr_info *info, uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= s && a < s + ph->p_memsz) {
            *lo = s;
            *hi = s + ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    (void)size;
    struct tp_module m = {0};
    m.lo = UINTPTR_MAX;
    m.bias = info->dlpi_addr;
    m.name = info->dlpi_name ? info->dlpi_name : "";
    m.phdr = info->dlpi_phdr;
    m.phnum = info->dlpi_phnum;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD) {
            if (a < m.lo)
                m.lo = a;
            if (a + ph->p_memsz > m.hi)
                m.hi = a + ph->p_memsz;
        } else if (ph->p_type == PT_DYNAMIC) {
            m.dyn = (const ElfW(Dyn) *)a;
        } else if (ph->p_type == PT_GNU_RELRO) {
            uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
            m.relro_lo = a & ~(pg - 1);
            m.relro_hi = (a + ph->p_memsz) & ~(pg - 1);
        }
    }
    if (m.hi <= m.lo)
        return 0;
    uintptr_t lo, hi;
    m.self = segment_maps(info, (uintptr_t)&tp_modmap_each, &lo, &hi);
    return w->fn(&m, w->arg);
}

int tp_modmap_each(int (*fn)(const struct tp_module *m, void *arg), void *arg)
{
    struct walk w = {fn, arg};
    return dl_iterate_phdr(visit, &w);
}

struct code_walk {
    int (*fn)(const struct tp_code_segment *s, void *arg);
    void *arg;
};

/* The module's PT_GNU_EH_FRAME and the readable PT_LOAD segment that holds it. */
static void eh_frame_of(const struct dl_phdr_info *info, struct tp_code_segment *s)
{
    const ElfW(Phdr) *eh = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
            eh = &info->dlpi_phdr[i];
    for (int i = 0; eh && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && eh->p_vaddr >= ph->p_vaddr &&
            eh->p_vaddr < ph->p_vaddr + ph->p_filesz) {
            s->eh_hdr = info->dlpi_addr + eh->p_vaddr;
            s->eh_lo = info->dlpi_addr + ph->p_vaddr;
            s->eh_hi = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
            return;
        }
    }
}

static int visit_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct code_walk *w = arg;
    (void)size;
    struct tp_code_segment eh = {0};
    eh_frame_of(info, &eh);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        struct tp_code_segment s = {info->dlpi_name ? info->dlpi_name : "",
                                    info->dlpi_addr,
                                    info->dlpi_addr + ph->p_vaddr,
                                    info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
                                    (ph->p_flags & PF_R) != 0,
                                    eh.eh_hdr,
                                    eh.eh_lo,
                                    eh.eh_hi};
        int rc = w->fn(&s, w->arg);
        if (rc)
            return rc;
    }
    return 0;
}

int tp_modmap_each_code(int (*fn)(const struct tp_code_segment *s, void *arg), void *arg)
{
    struct code_walk w = {fn, arg};
    return dl_iterate_phdr(visit_code, &w);
}

struct segment {
    uintptr_t a, lo, hi;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct segment *s = arg;
    (void)size;
    return segment_maps(info, s->a, &s->lo, &s->hi);
}

int tp_modmap_segment(uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
    struct segment s = {a, 0, 0};
    if (!dl_iterate_phdr(find_segment, &s))
        return -1;
    *lo = s.lo;
    *hi = s.hi;
    return 0;
}

int tp_modmap_mapped(uintptr_t a)
{
    uintptr_t lo, hi;
    return tp_modmap_segment(a, &lo, &hi) == 0;
}

/* The main program comes first in dl_iterate_phdr's order. */
static int main_dynamic(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            *(const ElfW(Dyn) **)arg =
                (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return 1;
}

const ElfW(Dyn) * tp_modmap_main_dynamic(void)
{
    const ElfW(Dyn) *dyn = NULL;
    dl_iterate_phdr(main_dynamic, &dyn);
    return dyn;
}

/* glibc counts every object ever loaded; the count only grows. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *adds = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *adds = info->dlpi_adds;
    return 1;
}

unsigned long long tp_modmap_loads(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(read_adds, &adds);
    return adds;
}

/* ---- build-ids ---- */

/* The GNU build-id in the note segment [p, p + size) with the segment's alignment: a note's name
 * and descriptor are each padded to 4 bytes, or to 8 in an 8-aligned segment (the PT_NOTE of
 * .note.gnu.property, which linkers may merge the build-id's note into). */
static size_t build_id_note(const unsigned char *p, size_t size, size_t align, unsigned char *out,
                            size_t cap)
{
    for (size_t off = 0; off < size && size - off >= sizeof(ElfW(Nhdr));) {
        ElfW(Nhdr) nh;
        memcpy(&nh, p + off, sizeof nh);
        size_t name = off + sizeof nh;
        if (nh.n_namesz > size || nh.n_descsz > size)
            return 0;
        size_t desc = name + ((nh.n_namesz + align - 1) & ~(align - 1));
        if (desc > size || nh.n_descsz > size - desc)
            return 0;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + name, "GNU", 4) &&
            nh.n_descsz > 0) {
            size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;
            memcpy(out, p + desc, n);
            return n;
        }
        off = desc + ((nh.n_descsz + align - 1) & ~(align - 1));
    }
    return 0;
}

size_t tp_modmap_build_id(const struct tp_module *m, unsigned char *out, size_t cap)
{
    for (int i = 0; i < m->phnum; i++) {
        const ElfW(Phdr) *ph = &m->phdr[i];
        uintptr_t a = m->bias + ph->p_vaddr;
        /* a note segment outside the mapped range (a file made by hand) is not read */
        if (ph->p_type != PT_NOTE || !ph->p_filesz || a < m->lo || ph->p_filesz > m->hi - a)
            continue;
        size_t n = build_id_note((const unsigned char *)a, ph->p_filesz, ph->p_align == 8 ? 8 : 4,
                                 out, cap);
        if (n)
            return n;
    }
    return 0;
}

/* ---- unloaded modules ---- */

static struct tp_departed departed[TP_MODMAP_MAX_DEPARTED];
static int ndeparted;
static unsigned long long departed_lost; /* unloaded past the room: in no list */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One module as it was before a dlclose: its name copied (ld.so frees its own with the module). */
struct kept {
    char *path;
    uintptr_t base, lo, hi;
    int there; /* found loaded again after the dlclose */
    unsigned char build_id[TP_BUILD_ID_MAX];
    unsigned char build_id_len;
};

static int snap_one(const struct tp_module *m, void *arg)
{
    struct tp_modmap_snap *s = arg;
    if (!m->name[0] || m->self)
        return 0; /* the main program, the vDSO and tprof are never unloaded */
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct kept *v = tp_realloc(s->v, cap * sizeof *v);
        if (!v)
            return 1;
        s->v = v;
        s->cap = cap;
    }
    struct kept *k = &s->v[s->n];
    k->path = tp_strdup(m->name);
    if (!k->path)
        return 1;
    k->base = m->bias;
    k->lo = m->lo;
    k->hi = m->hi;
    k->there = 0;
    k->build_id_len = (unsigned char)tp_modmap_build_id(m, k->build_id, sizeof k->build_id);
    s->n++;
    return 0;
}

void tp_modmap_before_dlclose(struct tp_modmap_snap *s)
{
    memset(s, 0, sizeof *s);
    tp_modmap_each(snap_one, s);
}

/* Mark the snapshot's entry for m (same name, same place) as still loaded: one walk of the
 * modules, the names compared only where the addresses agree. */
static int still_there(const struct tp_module *m, void *arg)
{
    struct tp_modmap_snap *s = arg;
    for (size_t i = 0; i < s->n; i++) {
        struct kept *k = &s->v[i];
        if (!k->there && m->bias == k->base && m->lo == k->lo && !strcmp(m->name, k->path)) {
            k->there = 1;
            break;
        }
    }
    return 0;
}

static void depart(const struct kept *k)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ndeparted; i++) {
        struct tp_departed *d = &departed[i];
        if (d->base == k->base && d->lo == k->lo && !strcmp(d->path, k->path)) {
            pthread_mutex_unlock(&lock);
            return; /* loaded again at the same place: already known */
        }
    }
    if (ndeparted < TP_MODMAP_MAX_DEPARTED) {
        struct tp_departed *d = &departed[ndeparted];
        strncpy(d->path, k->path, sizeof d->path - 1);
        d->base = k->base;
        d->lo = k->lo;
        d->hi = k->hi;
        memcpy(d->build_id, k->build_id, k->build_id_len);
        d->build_id_len = k->build_id_len;
        ndeparted++;
    } else {
        departed_lost++;
    }
    pthread_mutex_unlock(&lock);
}

/* Every module of the snapshot that is gone now departed: the one closed and whatever it alone
 * had loaded (a plugin's own dependencies go with it, and their call sites too). */
void tp_modmap_after_dlclose(struct tp_modmap_snap *s)
{
    tp_modmap_each(still_there, s);
    for (size_t i = 0; i < s->n; i++) {
        if (!s->v[i].there)
            depart(&s->v[i]);
        tp_free(s->v[i].path);
    }
    tp_free(s->v);
    memset(s, 0, sizeof *s);
}

const struct tp_departed *tp_modmap_departed_at(uintptr_t a)
{
    const struct tp_departed *hit = NULL;
    pthread_mutex_lock(&lock);
    for (int i = ndeparted - 1; i >= 0 && !hit; i--) /* the latest to be there */
        if (a >= departed[i].lo && a < departed[i].hi)
            hit = &departed[i];
    pthread_mutex_unlock(&lock);
    return hit;
}

void tp_modmap_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void tp_modmap_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void tp_modmap_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

const struct tp_departed *tp_modmap_departed(int *n)
{
    pthread_mutex_lock(&lock);
    *n = ndeparted;
    pthread_mutex_unlock(&lock);
    return departed;
}

/* ---- the report's list ---- */

/* What the walk keeps of one module. Copied into tp_alloc memory while dl_iterate_phdr holds the
 * loader's lock, where the program's malloc (hooked, and maybe walking stacks) is not called. */
struct listed {
    char *path;
    uintptr_t base, lo, hi;
    unsigned char build_id[TP_BUILD_ID_MAX];
    size_t build_id_len;
};

struct listing {
    struct listed *v;
    size_t n, cap;
    int seen; /* modules walked: the first is the main program */
};

static int list_one(const struct tp_module *m, void *arg)
{
    struct listing *l = arg;
    int main_program = l->seen++ == 0;
    if (!m->name[0] && !main_program)
        return 0; /* the vDSO where the loader gives it no name: no file stands for it */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct listed *v = tp_realloc(l->v, cap * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = cap;
    }
    struct listed *e = &l->v[l->n];
    e->path = main_program ? NULL : tp_strdup(m->name);
    if (!main_program && !e->path)
        return 1;
    e->base = m->bias;
    e->lo = m->lo;
    e->hi = m->hi;
    e->build_id_len = tp_modmap_build_id(m, e->build_id, sizeof e->build_id);
    l->n++;
    return 0;
}

static char *hex(const unsigned char *id, size_t n)
{
    if (!n)
        return NULL;
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; s && i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", id[i]);
    return s;
}

static char *exe_path(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return strdup("");
    buf[n] = 0;
    return strdup(buf);
}

void tp_modmap_collect(struct tp_report *r)
{
    struct listing l = {0};
    tp_modmap_each(list_one, &l);
    int nd;
    const struct tp_departed *d = tp_modmap_departed(&nd);
    struct tp_modinfo *v = calloc(l.n + (size_t)nd + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < l.n; i++, k++) {
        const struct listed *e = &l.v[i];
        v[k] = (struct tp_modinfo){.path = e->path ? strdup(e->path) : exe_path(),
                                   .build_id = hex(e->build_id, e->build_id_len),
                                   .base = e->base,
                                   .lo = e->lo,
                                   .hi = e->hi};
    }
    for (int i = 0; v && i < nd; i++, k++)
        v[k] = (struct tp_modinfo){.path = strdup(d[i].path),
                                   .build_id = hex(d[i].build_id, d[i].build_id_len),
                                   .base = d[i].base,
                                   .lo = d[i].lo,
                                   .hi = d[i].hi,
                                   .departed = 1};
    for (size_t i = 0; i < l.n; i++)
        tp_free(l.v[i].path);
    tp_free(l.v);
    r->modules = v;
    r->nmodules = v ? k : 0;
    pthread_mutex_lock(&lock);
    unsigned long long lost = departed_lost;
    pthread_mutex_unlock(&lock);
    if (lost)
        tp_report_note(r, "%llu modules unloaded past the room for %d in modules[] are not listed",
                       lost, TP_MODMAP_MAX_DEPARTED);
}
