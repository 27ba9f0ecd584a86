/* Names the hooks saw (see track/ops/ops.h). An array of pointers claimed by an atomic counter: no lock,
 * so a fork in the middle of an insertion leaves nothing held, and two threads adding the same
 * name at once keep it twice at worst (tp_seen_closest skips the copy). */
#include "track/ops/ops.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "track/rawalloc.h"

#define NAME_MAX_LEN 127 /* longer names are not compared: no misspelling is that long */

static _Atomic(char *) names[TP_SEEN_MAX];
static _Atomic uint32_t hashes[TP_SEEN_MAX];
static _Atomic size_t used;
static _Atomic int instr;

static uint32_t hash_of(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h | 1; /* 0 marks a slot still being written */
}

/* The name without a C++ parameter list: "ns::step(int)" is called "ns::step". */
static size_t base_len(const char *s)
{
    const char *p = strchr(s, '(');
    return p ? (size_t)(p - s) : strlen(s);
}

void tp_seen_add(const char *name, int instrumented)
{
    if (instrumented && !atomic_load_explicit(&instr, memory_order_relaxed))
        atomic_store(&instr, 1);
    if (!name)
        return;
    size_t n = base_len(name);
    if (n == 0 || n > NAME_MAX_LEN)
        return;
    uint32_t h = hash_of(name, n);
    size_t k = atomic_load_explicit(&used, memory_order_acquire);
    for (size_t i = 0; i < k && i < TP_SEEN_MAX; i++) {
        if (atomic_load_explicit(&hashes[i], memory_order_acquire) != h)
            continue;
        const char *s = atomic_load_explicit(&names[i], memory_order_acquire);
        if (s && strlen(s) == n && !memcmp(s, name, n))
            return;
    }
    if (atomic_load_explicit(&used, memory_order_relaxed) >= TP_SEEN_MAX)
        return;
    char *c = tp_alloc(n + 1);
    if (!c)
        return;
    memcpy(c, name, n);
    c[n] = 0;
    size_t i = atomic_fetch_add(&used, 1);
    if (i >= TP_SEEN_MAX) {
        atomic_store(&used, TP_SEEN_MAX);
        tp_free(c);
        return;
    }
    atomic_store_explicit(&names[i], c, memory_order_release);
    atomic_store_explicit(&hashes[i], h, memory_order_release);
}

int tp_seen_instrumented(void)
{
    return atomic_load(&instr);
}

size_t tp_seen_count(void)
{
    size_t k = atomic_load(&used);
    return k < TP_SEEN_MAX ? k : TP_SEEN_MAX;
}

/* Edit distance between a and b, case folded, where swapping two neighbours is one edit (the
 * optimal string alignment distance): "train_stpe" is 1 from "train_step". Names are at most
 * NAME_MAX_LEN long, so three rows on the stack do. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb)
{
    size_t rows[3][NAME_MAX_LEN + 1];
    size_t *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= nb; j++)
        p[j] = j;
    for (size_t i = 1; i <= na; i++) {
        c[0] = i;
        int ai = tolower((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= nb; j++) {
            int bj = tolower((unsigned char)b[j - 1]);
            size_t best = p[j - 1] + (ai != bj);
            if (p[j] + 1 < best)
                best = p[j] + 1;
            if (c[j - 1] + 1 < best)
                best = c[j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && pp[j - 2] + 1 < best)
                best = pp[j - 2] + 1;
            c[j] = best;
        }
        size_t *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[nb];
}

size_t tp_seen_closest(const char *name, const char **out, size_t max)
{
    size_t n = name ? base_len(name) : 0, found = 0, dist[8];
    if (n == 0 || n > NAME_MAX_LEN || max == 0)
        return 0;
    if (max > sizeof dist / sizeof dist[0])
        max = sizeof dist / sizeof dist[0];
    /* A third of the name may be wrong, at least one letter and at most three: beyond that the
     * "closest" name is merely some other function. */
    size_t limit = n / 3 < 1 ? 1 : n / 3 > 3 ? 3 : n / 3;
    size_t k = tp_seen_count();
    for (size_t i = 0; i < k; i++) {
        const char *s = atomic_load_explicit(&names[i], memory_order_acquire);
        size_t ns = s ? strlen(s) : 0;
        if (!s || (ns > n ? ns - n : n - ns) > limit)
            continue;
        size_t d = distance(name, n, s, ns);
        if (d > limit || d == 0)
            continue;
        int dup = 0;
        for (size_t j = 0; j < found; j++)
            dup |= !strcmp(out[j], s);
        if (dup)
            continue;
        /* insert in order of distance, then of name, so that the list does not depend on
         * which thread saw which function first */
        size_t at = found;
        while (at > 0 && (dist[at - 1] > d || (dist[at - 1] == d && strcmp(out[at - 1], s) > 0)))
            at--;
        if (at >= max)
            continue;
        size_t last = found < max ? found : max - 1;
        for (size_t j = last; j > at; j--) {
            out[j] = out[j - 1];
            dist[j] = dist[j - 1];
        }
        out[at] = s;
        dist[at] = d;
        if (found < max)
            found++;
    }
    return found;
}
