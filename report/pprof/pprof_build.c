/* The pprof profile builder (pprof_build.h): protobuf-c's messages for report/pprof/profile.proto
 * filled in tables sized once, entries kept unique by a key in uthash tables, then packed and
 * gzipped with zlib (readers expect a gzip member on disk).
 *
 * Every allocation of one profile comes from one arena and is released at once: the messages
 * point into it and into the caller's strings, never own anything, so nothing is freed message
 * by message (protobuf-c's own free would walk them as if each were malloc'ed). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <zlib.h>

#include "report/pprof/pprof_build.h"
#include "report/pprof/profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* ---- the arena ---- */

struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
};

/* A key to a table index: a string to its index in the string table; a function's, location's
 * or mapping's identity to its id. */
struct key {
    const char *k;
    uint64_t v;
    UT_hash_handle hh;
};

struct tp_pprof {
    struct chunk *arena;
    int oom;
    Profile p;
    size_t max_strings, max_functions, max_locations, max_mappings, max_samples, max_comments;
    struct key *strings, *functions, *locations, *mappings;
};

static void *alloc(struct tp_pprof *p, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (p->oom)
        return NULL;
    struct chunk *c = p->arena;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        c = malloc(sizeof *c + cap);
        if (!c) {
            p->oom = 1;
            return NULL;
        }
        c->next = p->arena;
        c->used = 0;
        c->cap = cap;
        p->arena = c;
    }
    void *at = (char *)c->data + c->used;
    c->used += n;
    memset(at, 0, n);
    return at;
}

static void *table(struct tp_pprof *p, size_t n, size_t size)
{
    return alloc(p, (n ? n : 1) * size);
}

char *tp_pprof_printf(struct tp_pprof *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? alloc(p, (size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* ---- keys ---- */

static struct key *find(struct key *tab, const char *k)
{
    struct key *e = NULL;
    if (k)
        HASH_FIND_STR(tab, k, e);
    return e;
}

static int add_key(struct tp_pprof *p, struct key **tab, const char *k, uint64_t v)
{
    struct key *e = alloc(p, sizeof *e);
    if (!e)
        return -1;
    e->k = k;
    e->v = v;
    HASH_ADD_KEYPTR(hh, *tab, e->k, strlen(e->k), e);
    return 0;
}

/* The index of s in the string table, added when new; 0 ("") for NULL or when the table is full
 * (which the sizes the caller gave rule out). */
static int64_t str(struct tp_pprof *p, const char *s)
{
    if (!s)
        return 0;
    struct key *e = find(p->strings, s);
    if (e)
        return (int64_t)e->v;
    size_t i = p->p.n_string_table;
    if (i >= p->max_strings || add_key(p, &p->strings, s, i) < 0)
        return 0;
    p->p.string_table[i] = (char *)s;
    p->p.n_string_table++;
    return (int64_t)i;
}

/* ---- the builder ---- */

struct tp_pprof *tp_pprof_new(size_t strings, size_t functions, size_t locations, size_t mappings,
                              size_t samples, size_t comments)
{
    struct tp_pprof *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    perftools__profiles__profile__init(&p->p);
    p->max_strings = strings + 16; /* "", the sample types and their units */
    p->max_functions = functions;
    p->max_locations = locations;
    p->max_mappings = mappings;
    p->max_samples = samples;
    p->max_comments = comments;
    p->p.string_table = table(p, p->max_strings, sizeof(char *));
    p->p.function = table(p, functions, sizeof(Function *));
    p->p.location = table(p, locations, sizeof(Location *));
    p->p.mapping = table(p, mappings, sizeof(Mapping *));
    p->p.sample = table(p, samples, sizeof(Sample *));
    p->p.comment = table(p, comments, sizeof(int64_t));
    if (p->oom || add_key(p, &p->strings, "", 0) < 0) {
        tp_pprof_free(p);
        return NULL;
    }
    p->p.string_table[0] = ""; /* a reader requires string_table[0] == "" */
    p->p.n_string_table = 1;
    return p;
}

void tp_pprof_free(struct tp_pprof *p)
{
    if (!p)
        return;
    /* the entries are the arena's; only the hash tables' own buckets are malloc'ed */
    HASH_CLEAR(hh, p->strings);
    HASH_CLEAR(hh, p->functions);
    HASH_CLEAR(hh, p->locations);
    HASH_CLEAR(hh, p->mappings);
    while (p->arena) {
        struct chunk *c = p->arena;
        p->arena = c->next;
        free(c);
    }
    free(p);
}

void tp_pprof_types(struct tp_pprof *p, const char *const *types, const char *const *units,
                    size_t n, const char *period_type, const char *period_unit)
{
    ValueType **t = table(p, n, sizeof *t);
    ValueType *v = table(p, n + 1, sizeof *v);
    if (!t || !v || !n)
        return;
    for (size_t i = 0; i <= n; i++) {
        perftools__profiles__value_type__init(&v[i]);
        v[i].type = str(p, i < n ? types[i] : period_type);
        v[i].unit = str(p, i < n ? units[i] : period_unit);
        if (i < n)
            t[i] = &v[i];
    }
    p->p.sample_type = t;
    p->p.n_sample_type = n;
    /* the last is the default, also for readers that ignore default_sample_type (speedscope) */
    p->p.default_sample_type = v[n - 1].type;
    p->p.period_type = &v[n];
    p->p.period = 1;
}

void tp_pprof_times(struct tp_pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
    p->p.time_nanos = time_nanos;
    p->p.duration_nanos = duration_nanos;
}

void tp_pprof_comment(struct tp_pprof *p, const char *text)
{
    if (text && p->p.n_comment < p->max_comments)
        p->p.comment[p->p.n_comment++] = str(p, text);
}

uint64_t tp_pprof_function(struct tp_pprof *p, const char *name, const char *file)
{
    char *k = tp_pprof_printf(p, "%s\x1f%s", name ? name : "", file ? file : "");
    struct key *e = find(p->functions, k);
    if (e)
        return e->v;
    Function *f = alloc(p, sizeof *f);
    if (!k || !f || p->p.n_function >= p->max_functions)
        return 0;
    perftools__profiles__function__init(f);
    f->id = p->p.n_function + 1;
    f->name = f->system_name = str(p, name);
    f->filename = str(p, file);
    if (add_key(p, &p->functions, k, f->id) < 0)
        return 0;
    p->p.function[p->p.n_function++] = f;
    return f->id;
}

uint64_t tp_pprof_mapping(struct tp_pprof *p, const char *file, uint64_t start, uint64_t limit,
                          const char *build_id)
{
    struct key *e = find(p->mappings, file);
    if (e)
        return e->v;
    Mapping *m = alloc(p, sizeof *m);
    if (!file || !m || p->p.n_mapping >= p->max_mappings)
        return 0;
    perftools__profiles__mapping__init(m);
    m->id = p->p.n_mapping + 1;
    m->filename = str(p, file);
    m->memory_start = start;
    m->memory_limit = limit;
    m->build_id = str(p, build_id);
    m->has_functions = m->has_filenames = m->has_line_numbers = m->has_inline_frames = 1;
    if (add_key(p, &p->mappings, file, m->id) < 0)
        return 0;
    p->p.mapping[p->p.n_mapping++] = m;
    return m->id;
}

uint64_t tp_pprof_location_find(struct tp_pprof *p, const char *key)
{
    struct key *e = find(p->locations, key);
    return e ? e->v : 0;
}

uint64_t tp_pprof_location(struct tp_pprof *p, const char *key, uint64_t mapping, uint64_t address,
                           const struct tp_pprof_line *lines, size_t nlines)
{
    uint64_t id = tp_pprof_location_find(p, key);
    if (id || !key)
        return id;
    Location *l = alloc(p, sizeof *l);
    Line **lp = table(p, nlines, sizeof *lp);
    Line *ls = table(p, nlines, sizeof *ls);
    if (!l || !lp || !ls || p->p.n_location >= p->max_locations)
        return 0;
    perftools__profiles__location__init(l);
    l->id = p->p.n_location + 1;
    l->mapping_id = mapping;
    l->address = address;
    for (size_t i = 0; i < nlines; i++) {
        if (!lines[i].function) /* a function a full table had no room for */
            continue;
        perftools__profiles__line__init(&ls[l->n_line]);
        ls[l->n_line].function_id = lines[i].function;
        ls[l->n_line].line = lines[i].line;
        lp[l->n_line] = &ls[l->n_line];
        l->n_line++;
    }
    l->line = lp;
    if (add_key(p, &p->locations, key, l->id) < 0)
        return 0;
    p->p.location[p->p.n_location++] = l;
    return l->id;
}

uint64_t tp_pprof_name_location(struct tp_pprof *p, const char *name)
{
    char *k = tp_pprof_printf(p, "name\x1f%s", name ? name : "");
    uint64_t id = tp_pprof_location_find(p, k);
    if (id || !k)
        return id;
    struct tp_pprof_line line = {tp_pprof_function(p, name, NULL), 0};
    return line.function ? tp_pprof_location(p, k, 0, 0, &line, 1) : 0;
}

int tp_pprof_sample(struct tp_pprof *p, const uint64_t *locations, size_t nlocations,
                    const int64_t *values, const struct tp_pprof_label *labels, size_t nlabels)
{
    size_t nv = p->p.n_sample_type;
    Sample *s = alloc(p, sizeof *s);
    uint64_t *loc = table(p, nlocations, sizeof *loc);
    int64_t *val = table(p, nv, sizeof *val);
    Label **lp = table(p, nlabels, sizeof *lp);
    Label *ls = table(p, nlabels, sizeof *ls);
    if (!s || !loc || !val || !lp || !ls || p->p.n_sample >= p->max_samples)
        return -1;
    perftools__profiles__sample__init(s);
    for (size_t i = 0; i < nlocations; i++)
        if (locations[i])
            loc[s->n_location_id++] = locations[i];
    memcpy(val, values, nv * sizeof *val);
    for (size_t i = 0; i < nlabels; i++) {
        perftools__profiles__label__init(&ls[i]);
        ls[i].key = str(p, labels[i].key);
        if (labels[i].str) {
            ls[i].str = str(p, labels[i].str);
        } else {
            ls[i].num = labels[i].num;
            ls[i].num_unit = str(p, labels[i].unit);
        }
        lp[i] = &ls[i];
    }
    s->location_id = loc;
    s->value = val;
    s->n_value = nv;
    s->label = lp;
    s->n_label = nlabels;
    p->p.sample[p->p.n_sample++] = s;
    return 0;
}

/* ---- packing and gzip ---- */

static int gzip_to(const uint8_t *in, size_t n, struct tp_buf *b)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip member (no file name, time 0: the same profile gives the same
     * bytes, so that a re-rendered file can be compared with the run's) */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, n);
    if (tp_buf_reserve(b, cap) < 0) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)b->p + b->len;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    if (rc == Z_STREAM_END)
        b->len += cap - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

int tp_pprof_write(struct tp_pprof *p, struct tp_buf *b)
{
    if (p->oom)
        return -1;
    size_t n = perftools__profiles__profile__get_packed_size(&p->p);
    uint8_t *packed = malloc(n ? n : 1);
    int rc = -1;
    if (packed && perftools__profiles__profile__pack(&p->p, packed) == n)
        rc = gzip_to(packed, n, b);
    free(packed);
    return rc;
}
