/* tp_ops_match (config.h): TPROF_OPS-style lists of case-insensitive globs, "!glob" excluding. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"

/* fnmatch(pat, name, FNM_CASEFOLD) for a pattern of plain characters and '*' and an ASCII name,
 * as every default op pattern is; -1 for any other pattern or name. glibc's fnmatch converts both
 * strings to wide characters in a UTF-8 locale, and the PLT scan matches every import of every
 * library against every pattern: a tenth of a compiler's time under tprof went there. */
static int ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int star_match(const char *p, const char *s)
{
    for (const char *c = p; *c; c++)
        if ((unsigned char)*c >= 0x80 || *c == '?' || *c == '[' || *c == '\\')
            return -1;
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c >= 0x80)
            return -1;
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            resume = s;
        } else if (*p && ascii_lower(*p) == ascii_lower(*s)) {
            p++;
            s++;
        } else if (star) {
            p = star;
            s = ++resume;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == 0;
}

/* A pattern list, split once: the PLT scan matches every import of every library (some 20,000
 * in a torch process, 4,500 in a compiler's) against TPROF_OPS and the default exclusions, where
 * splitting, trimming and checking each entry again for each name took a quarter of a compiler
 * process's instructions under tprof (callgrind). An entry is "*word*" or "word*" with word plain
 * lower-case ASCII (most op patterns: a substring or prefix test on the lower-cased name), one
 * that matches nothing (empty, or too long), or any other glob (star_match, else fnmatch). */
enum { PAT_GLOB, PAT_SUB, PAT_PREFIX, PAT_NONE, PAT_ALL };
struct pat_ent {
    uint8_t neg, kind;
    uint16_t off, len; /* in text: the trimmed entry (NUL-terminated), or its word */
};
#define PAT_TEXT 1024
#define PAT_ENTS 64
struct pat_list {
    char src[PAT_TEXT]; /* the list as given: the key */
    char text[PAT_TEXT];
    size_t used;
    int n;
    struct pat_ent e[PAT_ENTS];
};

/* Add the entry at p to l (l->used bytes of its text used); returns the next entry, "" at the end,
 * NULL when l is full. */
static const char *pat_entry(const char *p, struct pat_list *l)
{
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    struct pat_ent e = {n > 0 && *p == '!', PAT_NONE, 0, 0};
    const char *s = p + e.neg;
    n -= e.neg;
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (l->n == PAT_ENTS || (n < 256 && l->used + n + 1 > PAT_TEXT))
        return NULL; /* never for the first entry */
    if (n > 0 && n < 256) {
        size_t a = s[0] == '*', w = n - 1 - a;
        int plain = n >= a + 2 && s[n - 1] == '*';
        for (size_t i = a; plain && i < n - 1; i++) {
            unsigned char c = (unsigned char)s[i];
            plain = c < 0x80 && c != '*' && c != '?' && c != '[' && c != '\\' &&
                    !(c >= 'A' && c <= 'Z');
        }
        e.kind = plain ? (a ? PAT_SUB : PAT_PREFIX) : n == 1 && *s == '*' ? PAT_ALL : PAT_GLOB;
        e.off = (uint16_t)l->used;
        e.len = (uint16_t)(plain ? w : n);
        memcpy(l->text + l->used, plain ? s + a : s, e.len);
        l->text[l->used + e.len] = 0;
        l->used += e.len + 1u;
    }
    l->e[l->n++] = e;
    return comma ? comma + 1 : "";
}

static int pat_compile(const char *patterns, struct pat_list *l)
{
    size_t plen = strlen(patterns);
    if (plen >= PAT_TEXT)
        return -1;
    memcpy(l->src, patterns, plen + 1);
    l->n = 0;
    l->used = 0;
    for (const char *p = patterns; p && *p;)
        if (!(p = pat_entry(p, l)))
            return -1;
    return 0;
}

/* low: name in lower case, lowlen its length (NULL when name is not plain ASCII or too long). */
static int pat_one(const struct pat_list *l, const struct pat_ent *e, const char *name,
                   const char *low, size_t lowlen)
{
    const char *w = l->text + e->off;
    if (e->kind == PAT_NONE || e->kind == PAT_ALL)
        return e->kind == PAT_ALL; /* "*": any name (never empty here) */
    if (e->kind != PAT_GLOB && low) {
        if (lowlen < e->len)
            return 0;
        if (e->kind == PAT_PREFIX)
            return memcmp(low, w, e->len) == 0;
        /* memchr and a compare: for names of tens of characters, cheaper than memmem's set-up */
        const char *end = low + lowlen - e->len;
        for (const char *q = low; q <= end && (q = memchr(q, w[0], (size_t)(end - q) + 1)); q++)
            if (!memcmp(q + 1, w + 1, e->len - 1u))
                return 1;
        return 0;
    }
    char buf[258];
    const char *pat = w;
    if (e->kind != PAT_GLOB) {
        snprintf(buf, sizeof buf, "%s%s*", e->kind == PAT_SUB ? "*" : "", w);
        pat = buf;
    }
    int fast = star_match(pat, name);
    return fast >= 0 ? fast : fnmatch(pat, name, FNM_CASEFOLD) == 0;
}

/* The lists split so far, published once whole (lock-free: a compiled list is never changed);
 * a list that does not fit, or one past the pool, is split on the stack for each call. */
#define PAT_POOL 8
static struct pat_list pool[PAT_POOL];
static _Atomic int pool_claimed;
static struct pat_list *_Atomic pool_ready[PAT_POOL];

static const struct pat_list *pat_get(const char *patterns)
{
    for (int i = 0; i < PAT_POOL; i++) {
        struct pat_list *l = atomic_load_explicit(&pool_ready[i], memory_order_acquire);
        if (l && !strcmp(l->src, patterns))
            return l;
    }
    if (strlen(patterns) < PAT_TEXT &&
        atomic_load_explicit(&pool_claimed, memory_order_relaxed) < PAT_POOL) {
        int i = atomic_fetch_add(&pool_claimed, 1);
        if (i < PAT_POOL && pat_compile(patterns, &pool[i]) == 0) {
            atomic_store_explicit(&pool_ready[i], &pool[i], memory_order_release);
            return &pool[i];
        }
    }
    return NULL;
}

/* Match c's entries in order: 0 when an exclusion matched, else 1 (*included set by a match). */
static int pat_list_match(const struct pat_list *c, const char *name, const char *low, size_t k,
                          int *included)
{
    for (int i = 0; i < c->n; i++) {
        const struct pat_ent *e = &c->e[i];
        if (e->neg) {
            if (pat_one(c, e, name, low, k))
                return 0;
        } else if (!*included && pat_one(c, e, name, low, k)) {
            *included = 1;
        }
    }
    return 1;
}

/* A list not kept (the pool is full, or the list too long): one entry at a time, in a frame of
 * its own, so that the usual path's frame stays small (instrumented code calls this on threads
 * with small stacks). */
static __attribute__((noinline)) int match_unkept(const char *patterns, const char *name,
                                                  const char *low, size_t k)
{
    struct pat_list one;
    int included = 0;
    for (const char *p = patterns; *p;) {
        one.n = 0;
        one.used = 0;
        p = pat_entry(p, &one);
        if (!pat_list_match(&one, name, low, k, &included))
            return 0;
    }
    return included;
}

int tp_ops_match(const char *patterns, const char *name)
{
    if (!patterns || !name || !*name)
        return 0;
    char lowbuf[512], *low = lowbuf;
    size_t k;
    for (k = 0; name[k] && k < sizeof lowbuf - 1; k++) {
        if ((unsigned char)name[k] >= 0x80)
            break;
        lowbuf[k] = (char)ascii_lower(name[k]);
    }
    lowbuf[k] = 0;
    if (name[k])
        low = NULL; /* not ASCII, or longer than the buffer: the general match */
    const struct pat_list *l = pat_get(patterns);
    if (!l)
        return match_unkept(patterns, name, low, k);
    int included = 0;
    return pat_list_match(l, name, low, k, &included) && included;
}
