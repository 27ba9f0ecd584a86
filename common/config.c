#include "common/config.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/path.h"
#include "common/suppress.h"
#include "common/workspec.h"

void tp_config_defaults(struct tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->stack = 8;
    c->warmup = 1;
    c->top = 10;
    c->sched_wait = c->sched_warmup = c->sched_active = -1;
    c->max_ops = 1024;
    c->trace_max = 64ull << 20;
    c->trace_cap = 1000000;
    c->json_sites = 1000;
    c->plt = 1;
    c->hook_ns = -1;
    c->sample_hz = 100;
    c->demote = 500;
}

void tp_config_free(struct tp_config *c)
{
    free(c->output);
    free(c->json);
    free(c->trace);
    free(c->folded);
    free(c->html);
    free(c->ops);
    free(c->step);
    free(c->suppress);
    free(c->work);
    memset(c, 0, sizeof *c);
}

static void warn_line(tp_warn_fn warn, const char *var, const char *val, const char *why,
                      const char *def)
{
    char line[512], shown[201];
    /* A value may hold a newline or any control character: the warning stays one line. */
    size_t n = 0;
    for (; val[n] && n < sizeof shown - 1; n++)
        shown[n] = (unsigned char)val[n] < 0x20 || val[n] == 0x7f ? '?' : val[n];
    shown[n] = 0;
    snprintf(line, sizeof line, "tprof: %s=%s: %s; using %s\n", var, shown, why, def);
    if (warn)
        warn(line);
}

/* A path-like value: any non-empty string without control characters. */
static int valid_path(const char *v, const char **why)
{
    for (const char *p = v; *p; p++) {
        if ((unsigned char)*p < 0x20) {
            *why = "contains a control character";
            return 0;
        }
    }
    if (!*v) {
        *why = "empty path";
        return 0;
    }
    return 1;
}

/* How each variable is read. */
enum kind {
    K_BOOL,     /* int field */
    K_INT,      /* int field, lo..hi */
    K_U64,      /* uint64_t field, lo..hi */
    K_DOUBLE,   /* double field, lo..hi */
    K_SIZE,     /* uint64_t field, a size with K/M/G, at least lo */
    K_PATH,     /* char * field: a path template */
    K_OUTPUT,   /* char * field: "stderr", "none" or a path template */
    K_OPS,      /* char * field: a glob list (tp_parse_ops) */
    K_STEP,     /* char * field: one function name */
    K_SCHEDULE, /* sched_wait, sched_warmup, sched_active */
    K_SIGNAL,   /* int field: a signal number */
    K_SUPPRESS, /* char * field: the patterns of a leak suppression file (common/suppress.h) */
    K_WORK,     /* the work set: formulas (common/workspec.h) */
    K_WORKFILE, /* the work set: a file of formulas */
};

#define OFF(f) offsetof(struct tp_config, f)

/* Every TPROF_* variable, in the order they are read (and warned about). def is what a warning
 * says is used instead; it must agree with tp_config_defaults. */
static const struct var {
    const char *name;
    enum kind kind;
    size_t off;
    double lo, hi;
    const char *def;
} vars[] = {
    {"TPROF_DISABLE", K_BOOL, OFF(disable), 0, 0, "0"},
    {"TPROF_OUTPUT", K_OUTPUT, OFF(output), 0, 0, "stderr"},
    {"TPROF_JSON", K_PATH, OFF(json), 0, 0, "none (no JSON report)"},
    {"TPROF_TRACE", K_PATH, OFF(trace), 0, 0, "none (no trace)"},
    {"TPROF_FOLDED", K_PATH, OFF(folded), 0, 0, "none (no folded stacks)"},
    {"TPROF_OPS", K_OPS, OFF(ops), 0, 0, "the default op list"},
    {"TPROF_STACK", K_INT, OFF(stack), 1, TP_MAX_STACK, "8"},
    {"TPROF_WARMUP", K_INT, OFF(warmup), 0, 1000000, "1"},
    {"TPROF_TOP", K_INT, OFF(top), 1, 100000, "10"},
    {"TPROF_JSON_SITES", K_INT, OFF(json_sites), 0, 100000000, "1000"},
    {"TPROF_PEAK_GFLOPS", K_DOUBLE, OFF(peak_gflops), 1e-6, 1e9, "the calibrated value"},
    {"TPROF_PEAK_GBPS", K_DOUBLE, OFF(peak_gbps), 1e-6, 1e9, "the calibrated value"},
    {"TPROF_STEP", K_STEP, OFF(step), 0, 0, "none"},
    {"TPROF_SCHEDULE", K_SCHEDULE, 0, 0, 0, "record all steps"},
    {"TPROF_SIGNAL", K_SIGNAL, OFF(signal), 0, 0, "none"},
    {"TPROF_MAX_SITES", K_U64, OFF(max_sites), 16, 1ull << 26, "0 (no fixed cap)"},
    {"TPROF_MAX_OPS", K_U64, OFF(max_ops), 4, 1ull << 20, "1024"},
    {"TPROF_SNAPSHOT", K_DOUBLE, OFF(snapshot_s), 0.01, 1e7, "off"},
    {"TPROF_TRACE_MAX", K_SIZE, OFF(trace_max), 4096, 0, "64M"},
    {"TPROF_TRACE_CAP", K_U64, OFF(trace_cap), 0, 1ull << 40, "1000000"},
    {"TPROF_PLT", K_BOOL, OFF(plt), 0, 0, "1"},
    {"TPROF_DEBUGINFOD", K_BOOL, OFF(debuginfod), 0, 0, "0"},
    {"TPROF_HOOK_NS", K_DOUBLE, OFF(hook_ns), 0, 1e6, "the measured cost"},
    {"TPROF_SAMPLE_HZ", K_INT, OFF(sample_hz), 0, 1000, "100"},
    {"TPROF_SUPPRESS", K_SUPPRESS, OFF(suppress), 0, 0, "none"},
    {"TPROF_DEMOTE", K_DOUBLE, OFF(demote), 0, 1e9, "500"},
    {"TPROF_HTML", K_PATH, OFF(html), 0, 0, "none (no HTML report)"},
    {"TPROF_WORK", K_WORK, OFF(work), 0, 0, "no work from arguments"},
    {"TPROF_WORK_FILE", K_WORKFILE, OFF(work), 0, 0, "no work from arguments"},
    {"TPROF_MEMORY_BUDGET", K_SIZE, OFF(memory_budget), 4096, 0, "max(5% of peak RSS, 64M)"},
};
#define NVARS (sizeof vars / sizeof vars[0])

/* TPROF_SUPPRESS: the file is read now, at start-up, so that a bad one is said before the
 * program runs; the configuration is loaded once, so one buffer for the reason is enough. */
static int apply_suppress(char **f, const char *v, const char **why)
{
    static char reason[160];
    char *s;
    if (!valid_path(v, why))
        return -1;
    if (tp_suppress_load(v, &s, reason, sizeof reason) < 0) {
        *why = reason;
        return -1;
    }
    free(*f);
    *f = s;
    return 0;
}

/* TPROF_WORK, TPROF_WORK_FILE: compiled now, so that a bad formula is said before the program
 * runs; the file's entries add to (or replace) those of TPROF_WORK. */
static int apply_work(struct tp_work_set **set, const char *v, int file, const char **why)
{
    static char reason[200];
    if (file && !valid_path(v, why))
        return -1;
    int rc = file ? tp_work_load(set, v, reason, sizeof reason)
                  : tp_work_parse(set, v, reason, sizeof reason);
    if (rc < 0)
        *why = reason;
    return rc;
}

/* Apply one variable's value to c. 0, or -1 with *why (c untouched).
 * Long because it is one switch with a case per kind of variable, each a few lines. */
static int apply(struct tp_config *c, const struct var *d, const char *v, const char **why)
{
    void *f = (char *)c + d->off;
    long l;
    uint64_t u;
    double x;
    int b;
    char *s;
    switch (d->kind) {
    case K_BOOL:
        if (tp_parse_bool(v, &b, why) < 0)
            return -1;
        *(int *)f = b;
        return 0;
    case K_INT:
        if (tp_parse_int(v, (long)d->lo, (long)d->hi, &l, why) < 0)
            return -1;
        *(int *)f = (int)l;
        return 0;
    case K_U64:
        if (tp_parse_u64(v, (uint64_t)d->lo, (uint64_t)d->hi, &u, why) < 0)
            return -1;
        *(uint64_t *)f = u;
        return 0;
    case K_DOUBLE:
        if (tp_parse_double(v, d->lo, d->hi, &x, why) < 0)
            return -1;
        *(double *)f = x;
        return 0;
    case K_SIZE:
        if (tp_parse_size(v, &u, why) < 0)
            return -1;
        if (u < (uint64_t)d->lo) {
            *why = "below 4K";
            return -1;
        }
        *(uint64_t *)f = u;
        return 0;
    case K_OUTPUT:
        if (!strcmp(v, "stderr") || !strcmp(v, "none"))
            goto copy;
        /* fall through */
    case K_PATH:
        if (!valid_path(v, why))
            return -1;
        goto copy;
    case K_OPS:
        if (tp_parse_ops(v, why) < 0)
            return -1;
        goto copy;
    case K_STEP:
        if (!valid_path(v, why) || strchr(v, ',')) {
            *why = "expected one function name";
            return -1;
        }
        goto copy;
    case K_SCHEDULE:
        if (tp_parse_schedule(v, &c->sched_wait, &c->sched_warmup, &c->sched_active, why) < 0) {
            c->sched_wait = c->sched_warmup = c->sched_active = -1;
            return -1;
        }
        return 0;
    case K_SIGNAL:
        if (tp_parse_signal(v, &b, why) < 0)
            return -1;
        *(int *)f = b;
        return 0;
    case K_SUPPRESS: return apply_suppress((char **)f, v, why);
    case K_WORK:
    case K_WORKFILE: return apply_work((struct tp_work_set **)f, v, d->kind == K_WORKFILE, why);
    }
    *why = "unknown kind";
    return -1;
copy:
    s = strdup(v);
    if (!s) {
        *why = "out of memory";
        return -1;
    }
    free(*(char **)f);
    *(char **)f = s;
    return 0;
}

int tp_config_load(struct tp_config *c, tp_getenv_fn get, tp_warn_fn warn)
{
    int nw = 0;
    const char *v, *why;

    tp_config_defaults(c);
    for (size_t i = 0; i < NVARS; i++) {
        if (!(v = get(vars[i].name)))
            continue;
        if (apply(c, &vars[i], v, &why) < 0) {
            warn_line(warn, vars[i].name, v, why, vars[i].def);
            nw++;
        }
    }
    if (!c->output)
        c->output = strdup("stderr");
    if (!c->ops)
        c->ops = strdup(TP_DEFAULT_OPS);
    return nw;
}

static const char *default_text(const char *name)
{
    for (size_t i = 0; i < NVARS; i++)
        if (!strcmp(vars[i].name, name))
            return vars[i].def;
    return "none";
}

int tp_config_check_outputs(struct tp_config *c, const struct tp_path_ctx *ctx, tp_warn_fn warn)
{
    const struct {
        const char *var;
        char **field;
    } outs[] = {
        {"TPROF_OUTPUT", &c->output}, {"TPROF_JSON", &c->json}, {"TPROF_TRACE", &c->trace},
        {"TPROF_FOLDED", &c->folded}, {"TPROF_HTML", &c->html},
    };
    int nw = 0;
    if (c->disable)
        return 0;
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        const char *v = *outs[i].field;
        char path[4096], why[600];
        if (!v || (i == 0 && (!strcmp(v, "stderr") || !strcmp(v, "none"))))
            continue;
        if (tp_output_path(v, ctx, path, sizeof path) < 0)
            snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, path);
        else if (tp_check_output(path, why, sizeof why) < 0)
            ;
        else
            continue;
        warn_line(warn, outs[i].var, v, why, default_text(outs[i].var));
        nw++;
        free(*outs[i].field);
        *outs[i].field = i == 0 ? strdup("stderr") : NULL;
    }
    return nw;
}

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

static const struct pat_list *pat_get(const char *patterns, struct pat_list *tmp)
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
    return pat_compile(patterns, tmp) == 0 ? tmp : NULL;
}

int tp_ops_match(const char *patterns, const char *name)
{
    if (!patterns || !name || !*name)
        return 0;
    struct pat_list tmp;
    const struct pat_list *l = pat_get(patterns, &tmp);
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
    int included = 0;
    /* a list too long to keep whole (l NULL) is taken one entry at a time */
    for (const char *p = patterns; l || *p;) {
        if (!l) {
            tmp.n = 0;
            tmp.used = 0;
            p = pat_entry(p, &tmp);
        }
        const struct pat_list *c = l ? l : &tmp;
        for (int i = 0; i < c->n; i++) {
            const struct pat_ent *e = &c->e[i];
            if (e->neg) {
                if (pat_one(c, e, name, low, k))
                    return 0;
            } else if (!included && pat_one(c, e, name, low, k)) {
                included = 1;
            }
        }
        if (l)
            break;
    }
    return included;
}
