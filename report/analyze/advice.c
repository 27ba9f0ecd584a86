/* The advice on the time outside every op (see report/analyze/analyze.h). The decision table, per function:
 *
 *   kind "wait" (a runtime's spin or yield)  -> threads waiting, never an op to name
 *   kind "system" (libc, libm, ...)          -> never an op: its callers are what to name
 *   kind "interpreter" (python3.11)          -> the script's time: a profiler of its language
 *   something inlined into it                -> name the inlined function and its caller
 *   kind "no_symbol"                         -> stripped (only when its file has no .symtab):
 *                                               an unstripped build or debug symbols; else
 *                                               JIT-generated or symbol-less code
 *   kind "export" or "instrumented"          -> the TPROF_OPS= line to copy (not for an op demoted
 *                                               to a count: it is one already)
 *   kind "local"                             -> rebuild with -finstrument-functions (leaving the
 *                                               module's hot tiny functions out), or tprof.h
 *
 * A report from before the kinds (kind NULL) gets the general advice it always had.
 *
 * And, whether or not time goes outside every op (tp_advice_exclude): the ops demoted to counts
 * whose hooks cost at least 1% of the run -> the flag that leaves them out of the build. */
#include "report/analyze/analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/units.h"

#define MAX_NAMED 3

static char *pct(double frac, char *out, size_t n)
{
    double p = isfinite(frac) && frac > 0 ? 100 * frac : 0;
    if (p > 0 && p < 0.5)
        snprintf(out, n, "<1%%");
    else if (p < 9.95)
        snprintf(out, n, "%.1f%%", p);
    else
        snprintf(out, n, "%.0f%%", p);
    return out;
}

static int is(const struct tp_outside_fn *f, const char *kind)
{
    return f->kind && !strcmp(f->kind, kind);
}

int tp_advice_works(const struct tp_outside_fn *f)
{
    return !is(f, "wait") && !(f->module && tp_spin_module(f->module));
}

double tp_advice_run_share(const struct tp_report *r, const struct tp_outside_fn *f)
{
    uint64_t all = r->samples.total ? r->samples.total : r->samples.outside_ops;
    return all ? (double)f->samples / (double)all : 0;
}

/* The functions named, in order: what tp_advice_names lists. Returns how many into v. */
static size_t named(const struct tp_report *r, const struct tp_outside_fn **v)
{
    size_t i = 0;
    for (size_t k = 0; k < r->noutside_ops && i < MAX_NAMED; k++) {
        const struct tp_outside_fn *f = &r->outside_ops[k];
        if (!tp_advice_works(f))
            continue;
        if (i > 0 && f->share < 0.05)
            break;
        v[i++] = f;
    }
    return i;
}

size_t tp_advice_names(const struct tp_report *r, struct tp_buf *t)
{
    const struct tp_outside_fn *v[MAX_NAMED];
    size_t n = named(r, v);
    char p[32];
    for (size_t i = 0; i < n; i++) {
        tp_buf_puts(t, i == 0 ? "" : ", ");
        if (v[i]->name)
            tp_buf_puts(t, v[i]->name);
        else
            tp_buf_printf(t, "code without a symbol in %s", v[i]->module ? v[i]->module : "?");
        if (i == 0)
            tp_buf_printf(
                t, " (~%s of the run's %llu CPU samples)",
                pct(tp_advice_run_share(r, v[i]), p, sizeof p),
                (unsigned long long)(r->samples.total ? r->samples.total : r->samples.outside_ops));
        else
            tp_buf_printf(t, " (~%s)", pct(tp_advice_run_share(r, v[i]), p, sizeof p));
    }
    return n;
}

/* "a", "a and b", "a, b and c" */
static void list(struct tp_buf *t, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(t, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
}

/* The TPROF_OPS value naming names[0..n): a C++ name with its parameters ("net::conv(int, int)")
 * as a glob of its name and "(*" (a comma would split the setting); quoted for the shell when it
 * holds more than letters, digits and "_.,:-". */
static void ops_value(struct tp_buf *t, const char *const *names, size_t n)
{
    struct tp_buf v;
    tp_buf_init(&v);
    for (size_t i = 0; i < n; i++) {
        const char *paren = strchr(names[i], '(');
        if (i)
            tp_buf_putc(&v, ',');
        if (paren)
            tp_buf_printf(&v, "%.*s(*", (int)(paren - names[i]), names[i]);
        else
            tp_buf_puts(&v, names[i]);
    }
    const char *s = tp_buf_ok(&v) ? tp_buf_str(&v) : "";
    if (s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:-")])
        tp_buf_printf(t, "'%s'", s);
    else
        tp_buf_puts(t, s);
    tp_buf_free(&v);
}

static void ops_line(struct tp_buf *t, const char *const *names, size_t n)
{
    tp_buf_puts(t, "TPROF_OPS=");
    ops_value(t, names, n);
    tp_buf_puts(t, " (or tprof run --ops ");
    ops_value(t, names, n);
    tp_buf_puts(t, ")");
}

static int hookable(const struct tp_outside_fn *f)
{
    return is(f, "export") || is(f, "instrumented");
}

static void inlined_row(const struct tp_outside_fn *f, struct tp_buf *t)
{
    if (hookable(f)) {
        const char *c = f->name;
        tp_buf_printf(t, " %s is inlined into %s: time %s as an op with ", f->inlined, f->name,
                      f->name);
        ops_line(t, &c, 1);
        tp_buf_printf(t,
                      ", or keep %s a call of its own with __attribute__((noinline)) or "
                      "-fno-inline.",
                      f->inlined);
    } else {
        tp_buf_printf(t,
                      " %s is inlined into %s, so no call of it exists to hook: mark it with a "
                      "tprof.h region, or keep it a call of its own with "
                      "__attribute__((noinline)) and build %s with -finstrument-functions.",
                      f->inlined, f->name, f->module ? f->module : "the program");
    }
}

/* The functions of module m of kind "system" or "interpreter", from v[0..n), in one sentence. */
static void system_row(const struct tp_outside_fn *const *v, size_t n, const char *m,
                       const char *kind, struct tp_buf *t)
{
    const char *names[MAX_NAMED];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (is(v[i], kind) && !strcmp(v[i]->module ? v[i]->module : "", m)) {
            names[k] = v[i]->name ? v[i]->name
                       : k == 0   ? "Code without a symbol"
                                  : "code without a symbol";
            k++;
        }
    if (!k)
        return;
    tp_buf_puts(t, " ");
    list(t, names, k);
    if (!strcmp(kind, "interpreter")) {
        tp_buf_printf(t,
                      " %s in %s, the interpreter running the program's own code: that time is "
                      "the script's, outside every native op, and a profiler of that language "
                      "(Python's cProfile) breaks it down.",
                      k > 1 ? "are" : "is", m);
        return;
    }
    tp_buf_printf(t,
                  " %s in %s, a system library whose functions are never ops: the time is %s "
                  "callers', which TPROF_OPS or a tprof.h region can name.",
                  k > 1 ? "are" : "is", m[0] ? m : "?", k > 1 ? "their" : "its");
}

static void no_symbol_row(const struct tp_outside_fn *f, struct tp_buf *t)
{
    if (!f->module)
        tp_buf_puts(t, " The code without a symbol is in no loaded file (JIT-generated code): "
                       "there is no name to give TPROF_OPS.");
    else if (f->stripped)
        tp_buf_printf(t,
                      " %s is stripped, so its code has no names: an unstripped build of it, or "
                      "its debug symbols package, would name the functions.",
                      f->module);
    else
        tp_buf_printf(t,
                      " The code without a symbol in %s has none in its symbol table either "
                      "(generated or hand-written code): there is no name to give TPROF_OPS.",
                      f->module);
}

/* Into out: a part of a function's name, as tprof prints it, that GCC's
 * -finstrument-functions-exclude-function-list matches. GCC takes the list apart at commas (an
 * escaped one, "\," is kept) and leaves a function out when an entry is a substring of its
 * printable name: qualified, without parameters nor return type. So the return type, parameters
 * and a clone's suffix (".constprop.0", " [clone .isra.0]") come off. Template arguments come
 * off too, as GCC spells them unlike the demangler (Box<float, int>::get is GCC's
 * "Box<float>::get", a default argument left out; "long" is its "long int"): of the name's parts
 * before its first template argument list and after its last, the longer ("net::axpy",
 * "::get"), which matches every instantiation. 0 for a name that has no such part tprof can be
 * sure of (an operator, a lambda, a quote). */
static int gcc_name(const char *name, struct tp_buf *out)
{
    if (strstr(name, "operator") || strchr(name, '{') || strchr(name, '\''))
        return 0;
    const char *anon = strstr(name, "(anonymous namespace)");
    if (anon) /* GCC prints "{anonymous}": from the "::" after it, a substring of both */
        name = anon + strlen("(anonymous namespace)");
    const char *start = name, *end = name, *lt = NULL, *gt = NULL;
    int depth = 0;
    for (; *end; end++) {
        if (*end == '<' && depth++ == 0 && !lt)
            lt = end;
        else if (*end == '>' && depth > 0 && --depth == 0)
            gt = end + 1;
        else if (depth == 0 && (*end == '(' || *end == '.' || *end == '['))
            break;
        else if (depth == 0 && *end == ' ') { /* what came before is the return type */
            start = end + 1;
            lt = gt = NULL;
        }
    }
    while (end > start && end[-1] == ' ')
        end--;
    if (lt && gt && gt <= end) {
        if (end - gt > lt - start)
            start = gt;
        else
            end = lt;
    }
    if (end <= start)
        return 0;
    tp_buf_printf(out, "%.*s", (int)(end - start), start);
    return 1;
}

/* A hot function of at most this many bytes is left out of the advice's -finstrument-functions
 * rebuild: some 15 instructions, fewer than the two hooks' calls and fast paths it would gain
 * per call when it is called often for little work (a loop that small can also run long: then
 * its hooks cost nothing much, and leaving them out loses nothing the advice asks for). Hot: at
 * least 2 of the samples outside every op and 1% of them, so that one stray sample names none. */
#define TINY_BYTES 64
#define MAX_TINY   5

/* An entry of GCC's list: its commas escaped, as GCC's option parser reads "\," */
static void put_entry(struct tp_buf *flag, const char *e)
{
    for (; *e; e++) {
        if (*e == ',')
            tp_buf_putc(flag, '\\');
        tp_buf_putc(flag, *e);
    }
}

/* -finstrument-functions-exclude-function-list=list, quoted for the shell when list holds more
 * than letters, digits and "_.,:" */
static void exclude_flag(struct tp_buf *t, const char *list)
{
    int q =
        list[strspn(list, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:")] !=
        0;
    tp_buf_printf(t, "%s-finstrument-functions-exclude-function-list=%s%s", q ? "'" : "", list,
                  q ? "'" : "");
}

static int named_in(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(names[i], s))
            return 1;
    return 0;
}

/* The list of GCC's -finstrument-functions-exclude-function-list for the hot tiny functions of
 * module m among the samples (all of them, not only those named), none a function of names (to
 * be timed as ops) nor a substring of one; their names into tiny. */
static size_t tiny_flag(const struct tp_report *r, const char *m, const char *const *names,
                        size_t n, const char **tiny, struct tp_buf *flag)
{
    size_t k = 0;
    for (size_t i = 0; i < r->noutside_ops && k < MAX_TINY; i++) {
        const struct tp_outside_fn *f = &r->outside_ops[i];
        if (!is(f, "local") || !f->name || !f->size || f->size > TINY_BYTES || f->samples < 2 ||
            f->share < 0.01 || strcmp(f->module ? f->module : "", m) || named_in(names, n, f->name))
            continue;
        struct tp_buf e;
        tp_buf_init(&e);
        if (gcc_name(f->name, &e) && tp_buf_ok(&e) && !named_in(names, n, tp_buf_str(&e))) {
            if (k)
                tp_buf_putc(flag, ',');
            put_entry(flag, tp_buf_str(&e));
            tiny[k++] = f->name;
        }
        tp_buf_free(&e);
    }
    return k;
}

/* The functions of module m without a hook, from v[0..n) with kind "local" and nothing inlined,
 * in one sentence. */
static void local_row(const struct tp_report *r, const struct tp_outside_fn *const *v, size_t n,
                      const char *m, struct tp_buf *t)
{
    const char *names[MAX_NAMED];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (is(v[i], "local") && !v[i]->inlined && v[i]->name &&
            !strcmp(v[i]->module ? v[i]->module : "", m))
            names[k++] = v[i]->name;
    if (!k)
        return;
    tp_buf_puts(t, " ");
    list(t, names, k);
    tp_buf_printf(t,
                  " %s %s's own, and %s was not built with -finstrument-functions, so no hook "
                  "reaches %s: rebuild it with -finstrument-functions ",
                  k > 1 ? "are" : "is", m[0] ? m : "the program", m[0] ? m : "it",
                  k > 1 ? "them" : "it");
    const char *tiny[MAX_TINY];
    struct tp_buf flag;
    tp_buf_init(&flag);
    size_t nt = tiny_flag(r, m, names, k, tiny, &flag);
    if (nt && tp_buf_ok(&flag)) {
        exclude_flag(t, tp_buf_str(&flag));
        tp_buf_puts(t, " (");
        list(t, tiny, nt);
        tp_buf_printf(t, ", hot and of at most %d bytes: %s may cost more than %s work) ",
                      TINY_BYTES, nt > 1 ? "their hooks" : "its hooks", nt > 1 ? "their" : "its");
    }
    tp_buf_free(&flag);
    tp_buf_puts(t, "and ");
    ops_line(t, names, k);
    tp_buf_printf(t, ", or mark %s with tprof.h regions.", k > 1 ? "them" : "it");
}

/* The functions of a runtime's yield loop among the samples (the OpenMP spin has its own
 * sentence, from the sampler's count). */
static void wait_row(const struct tp_report *r, struct tp_buf *t)
{
    const char *names[MAX_NAMED];
    double share = 0;
    size_t k = 0;
    for (size_t i = 0; i < r->noutside_ops && k < MAX_NAMED; i++) {
        const struct tp_outside_fn *f = &r->outside_ops[i];
        if (!is(f, "wait") || !f->name || (f->module && tp_spin_module(f->module)) ||
            f->share < 0.05)
            continue;
        names[k++] = f->name;
        share += tp_advice_run_share(r, f);
    }
    if (!k)
        return;
    char p[32];
    tp_buf_puts(t, " ");
    list(t, names, k);
    tp_buf_printf(t,
                  " (~%s of the run's CPU samples) %s threads waiting for work in a runtime's "
                  "yield loop, not work: no op to name there.",
                  pct(share, p, sizeof p), k > 1 ? "are" : "is");
}

/* An op already, demoted to a count (too short to time): its samples are outside every op, yet
 * naming it in TPROF_OPS again changes nothing; tp_advice_exclude says what does. */
static int demoted_op(const struct tp_report *r, const char *name)
{
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].demoted && r->ops[i].name && !strcmp(r->ops[i].name, name))
            return 1;
    return 0;
}

/* The table: one branch per row, the rows' sentences in the order above. */
void tp_advice_outside(const struct tp_report *r, struct tp_buf *t)
{
    const struct tp_outside_fn *v[MAX_NAMED];
    size_t n = named(r, v);
    const char *hook[MAX_NAMED];
    size_t nhook = 0;
    int old = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tp_outside_fn *f = v[i];
        if (!f->kind)
            old = 1;
        else if (is(f, "system") || is(f, "interpreter"))
            continue; /* below, by module */
        else if (f->inlined && f->name)
            inlined_row(f, t);
        else if (is(f, "no_symbol") || !f->name)
            no_symbol_row(f, t);
        else if (hookable(f) && !demoted_op(r, f->name))
            hook[nhook++] = f->name;
    }
    if (nhook) {
        tp_buf_puts(t, " To time ");
        if (n == 1)
            tp_buf_puts(t, "it");
        else
            list(t, hook, nhook);
        tp_buf_puts(t, nhook > 1 ? " as ops: " : " as an op: ");
        ops_line(t, hook, nhook);
        tp_buf_puts(t, ".");
    }
    for (size_t i = 0; i < n; i++) {
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(v[j]->module ? v[j]->module : "", v[i]->module ? v[i]->module : ""))
                first = 0;
        if (first) {
            system_row(v, n, v[i]->module ? v[i]->module : "", "system", t);
            system_row(v, n, v[i]->module ? v[i]->module : "", "interpreter", t);
            local_row(r, v, n, v[i]->module ? v[i]->module : "", t);
        }
    }
    if (old)
        tp_buf_puts(t, " TPROF_OPS can name functions as ops.");
    wait_row(r, t);
}

/* The most demoted functions named in the sentence; the flag lists every one it can. */
#define MAX_EXCL_NAMED 5

/* A demoted op whose hooks a rebuild can leave out: one the -finstrument-functions hooks saw. */
static int excludable(const struct tp_op *o)
{
    return o->demoted && o->name && o->source && !strcmp(o->source, "instrumented");
}

static int by_calls(const void *a, const void *b)
{
    const struct tp_op *x = *(const struct tp_op *const *)a, *y = *(const struct tp_op *const *)b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Whether GCC's entry e would also leave out an instrumented op that stays (matching is by
 * substring: "gemm" leaves out gemm_nn too) or the step function. An op seen otherwise (through
 * the PLT) has no hooks of this build to lose. */
static int hits_other(const struct tp_report *r, const char *e)
{
    for (size_t i = 0; i < r->nops; i++) {
        const struct tp_op *o = &r->ops[i];
        if (!excludable(o) && o->name && o->source && !strcmp(o->source, "instrumented") &&
            strstr(o->name, e))
            return 1;
    }
    return r->steps.name && strstr(r->steps.name, e);
}

/* The demoted ops, most calls first, that an entry of the flag can name, into v (their entries
 * into flag, comma-separated); how many. */
static size_t listable(const struct tp_report *r, const struct tp_op **v, struct tp_buf *flag)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < r->nops; i++)
        if (excludable(&r->ops[i]))
            v[n++] = &r->ops[i];
    qsort(v, n, sizeof *v, by_calls);
    for (size_t i = 0; i < n; i++) {
        struct tp_buf e;
        tp_buf_init(&e);
        if (gcc_name(v[i]->name, &e) && tp_buf_ok(&e) && !hits_other(r, tp_buf_str(&e))) {
            if (k)
                tp_buf_putc(flag, ',');
            put_entry(flag, tp_buf_str(&e));
            v[k++] = v[i];
        }
        tp_buf_free(&e);
    }
    return k;
}

/* "1000", "115M": exact while short, as the demotion notes say the calls */
static char *calls_str(uint64_t n, char *out, size_t size)
{
    if (n < 10000000)
        snprintf(out, size, "%llu", (unsigned long long)n);
    else
        tp_fmt_count(n, out, size);
    return out;
}

void tp_advice_exclude(const struct tp_report *r, uint64_t run_ns, struct tp_buf *t)
{
    if (!(r->program.hook_ns > 0) || !run_ns || !r->nops)
        return;
    const struct tp_op **v = calloc(r->nops, sizeof *v);
    struct tp_buf flag;
    tp_buf_init(&flag);
    size_t n = v ? listable(r, v, &flag) : 0;
    uint64_t calls = 0;
    for (size_t i = 0; i < n; i++)
        calls = calls > UINT64_MAX - v[i]->calls ? UINT64_MAX : calls + v[i]->calls;
    /* each call runs two hooks, its entry's and its exit's */
    double cost = 2.0 * r->program.hook_ns * (double)calls;
    /* Under 1% a rebuild buys less than a run's own noise: the ops' times already have the
     * hooks' cost taken out, so what is left to gain is the run's speed under tprof. */
    if (n && tp_buf_ok(&flag) && cost >= 0.01 * (double)run_ns) {
        char c[32], ns[32], p[32];
        const char *names[MAX_EXCL_NAMED];
        size_t k = n < MAX_EXCL_NAMED ? n : MAX_EXCL_NAMED;
        for (size_t i = 0; i < k; i++)
            names[i] = v[i]->name;
        tp_buf_puts(t, " ");
        if (n > k) {
            for (size_t i = 0; i < k; i++)
                tp_buf_printf(t, "%s%s", i ? ", " : "", names[i]);
            tp_buf_printf(t, " and %zu more were", n - k);
        } else {
            list(t, names, k);
            tp_buf_puts(t, n > 1 ? " were" : " was");
        }
        tp_buf_printf(t,
                      " called %s times, each call too short to time; %s hooks cost ~%s (%s of "
                      "the %s): rebuild with ",
                      calls_str(calls, c, sizeof c), n > 1 ? "their" : "its",
                      tp_fmt_ns((uint64_t)cost, ns, sizeof ns),
                      pct(cost / (double)run_ns, p, sizeof p),
                      r->nthreads > 1 ? "threads' time" : "run");
        exclude_flag(t, tp_buf_str(&flag));
        tp_buf_printf(t, " to leave %s out.", n > 1 ? "them" : "it");
    }
    tp_buf_free(&flag);
    free(v);
}
