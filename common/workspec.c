/* Work specifications (see workspec.h): a recursive-descent compiler to a postfix program. */
#include "common/workspec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"

enum { OP_CONST, OP_VAR, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_MIN, OP_MAX, OP_NZ };
/* where a binary operation's right operand is: the stack, the instruction's k, parameter var */
enum { SRC_STACK, SRC_K, SRC_V };

#define MAX_DEPTH 16

struct parser {
    const char *p;
    struct tp_work_fn *fn;
    struct tp_work_expr *e;
    int depth, max_depth;
    const char *err;
};

static void skip_space(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static int emit(struct parser *ps, int op, int var, int64_t k, int push)
{
    struct tp_work_insn *last = ps->e->n ? &ps->e->code[ps->e->n - 1] : NULL;
    if (push < 0 && last && (last->op == OP_CONST || last->op == OP_VAR)) {
        /* the right operand was just pushed: it becomes the operation's own */
        last->src = last->op == OP_CONST ? SRC_K : SRC_V;
        last->op = (uint8_t)op;
        ps->depth += push;
        return 0;
    }
    if (ps->e->n >= TP_WORK_MAX_CODE) {
        ps->err = "formula too long";
        return -1;
    }
    struct tp_work_insn *i = &ps->e->code[ps->e->n++];
    i->op = (uint8_t)op;
    i->src = SRC_STACK;
    i->var = (uint8_t)var;
    i->k = k;
    ps->depth += push;
    if (ps->depth > ps->max_depth)
        ps->max_depth = ps->depth;
    if (ps->depth > MAX_DEPTH) {
        ps->err = "formula nested too deeply";
        return -1;
    }
    return 0;
}

static int ident_char(int c)
{
    return isalnum(c) || c == '_';
}

static int var_index(struct parser *ps, const char *name, size_t len)
{
    struct tp_work_fn *f = ps->fn;
    for (int i = 0; i < f->nvars; i++)
        if (strlen(f->vars[i]) == len && !strncmp(f->vars[i], name, len))
            return i;
    if (len >= TP_WORK_VAR) {
        ps->err = "parameter name too long";
        return -1;
    }
    if (f->nvars >= TP_WORK_MAX_VARS) {
        ps->err = "more than 8 parameters";
        return -1;
    }
    memcpy(f->vars[f->nvars], name, len);
    f->vars[f->nvars][len] = 0;
    return f->nvars++;
}

static int expr(struct parser *ps);

/* min(a,b), max(a,b) */
static int call2(struct parser *ps, int op)
{
    skip_space(ps);
    if (*ps->p != '(') {
        ps->err = "expected '(' after min or max";
        return -1;
    }
    ps->p++;
    if (expr(ps) < 0)
        return -1;
    skip_space(ps);
    if (*ps->p != ',') {
        ps->err = "expected ',' in min or max";
        return -1;
    }
    ps->p++;
    if (expr(ps) < 0)
        return -1;
    skip_space(ps);
    if (*ps->p != ')') {
        ps->err = "expected ')'";
        return -1;
    }
    ps->p++;
    return emit(ps, op, 0, 0, -1);
}

static int primary(struct parser *ps)
{
    skip_space(ps);
    const char *s = ps->p;
    if (*s == '-') {
        ps->p++;
        return primary(ps) < 0 ? -1 : emit(ps, OP_NEG, 0, 0, 0);
    }
    if (*s == '(') {
        ps->p++;
        if (expr(ps) < 0)
            return -1;
        skip_space(ps);
        if (*ps->p != ')') {
            ps->err = "expected ')'";
            return -1;
        }
        ps->p++;
        return 0;
    }
    if (isdigit((unsigned char)*s)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v)) {
                ps->err = "number too large";
                return -1;
            }
            ps->p++;
        }
        if (ident_char((unsigned char)*ps->p)) {
            ps->err = "bad number";
            return -1;
        }
        return emit(ps, OP_CONST, 0, v, 1);
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        while (ident_char((unsigned char)*ps->p))
            ps->p++;
        size_t len = (size_t)(ps->p - s);
        if (len == 3 && (!strncmp(s, "min", 3) || !strncmp(s, "max", 3))) {
            skip_space(ps);
            if (*ps->p == '(')
                return call2(ps, s[1] == 'i' ? OP_MIN : OP_MAX);
        }
        if (len == 2 && !strncmp(s, "nz", 2)) {
            skip_space(ps);
            if (*ps->p == '(')
                return primary(ps) < 0 ? -1 : emit(ps, OP_NZ, 0, 0, 0);
        }
        int v = var_index(ps, s, len);
        return v < 0 ? -1 : emit(ps, OP_VAR, v, 0, 1);
    }
    ps->err = *s ? "expected a number, a parameter name or '('" : "formula ends too early";
    return -1;
}

static int term(struct parser *ps)
{
    if (primary(ps) < 0)
        return -1;
    for (;;) {
        skip_space(ps);
        char c = *ps->p;
        if (c != '*' && c != '/')
            return 0;
        ps->p++;
        if (primary(ps) < 0 || emit(ps, c == '*' ? OP_MUL : OP_DIV, 0, 0, -1) < 0)
            return -1;
    }
}

static int expr(struct parser *ps)
{
    if (term(ps) < 0)
        return -1;
    for (;;) {
        skip_space(ps);
        char c = *ps->p;
        if (c != '+' && c != '-')
            return 0;
        ps->p++;
        if (term(ps) < 0 || emit(ps, c == '+' ? OP_ADD : OP_SUB, 0, 0, -1) < 0)
            return -1;
    }
}

/* One "name: flops=... bytes=..." entry from ps->p up to ';', a new line or the end. */
static int entry(struct parser *ps, struct tp_work_fn *f)
{
    memset(f, 0, sizeof *f);
    ps->fn = f;
    skip_space(ps);
    const char *s = ps->p;
    /* a C++ name may hold "::"; one ':' ends the name */
    while (*ps->p && *ps->p != ';' && *ps->p != '\n' && *ps->p != ' ' && *ps->p != '\t' &&
           *ps->p != '(' && !(*ps->p == ':' && ps->p[1] != ':'))
        ps->p += *ps->p == ':' ? 2 : 1;
    size_t len = (size_t)(ps->p - s);
    skip_space(ps);
    f->nparams = -1;
    if (len && *ps->p == '(') {
        if (tp_work_proto(&ps->p, f->params, &f->nparams, &ps->err) < 0)
            return -1;
        skip_space(ps);
    }
    if (!len || *ps->p != ':') {
        ps->err = len ? "expected ':' after the function name" : "expected a function name";
        return -1;
    }
    if (len >= TP_WORK_NAME) {
        ps->err = "function name too long";
        return -1;
    }
    memcpy(f->name, s, len);
    ps->p++;
    for (;;) {
        skip_space(ps);
        if (!*ps->p || *ps->p == ';' || *ps->p == '\n' || *ps->p == '#')
            break;
        struct tp_work_expr *e = !strncmp(ps->p, "flops", 5)   ? &f->flops
                                 : !strncmp(ps->p, "bytes", 5) ? &f->bytes
                                                               : NULL;
        if (e)
            ps->p += 5, skip_space(ps);
        if (!e || *ps->p != '=') {
            ps->err = "expected flops= or bytes=";
            return -1;
        }
        if (e->n) {
            ps->err = e == &f->flops ? "flops given twice" : "bytes given twice";
            return -1;
        }
        ps->p++;
        ps->e = e;
        ps->depth = 0;
        if (expr(ps) < 0)
            return -1;
        /* the next key or the entry's end, after white space the formula's end skipped */
        char c = *ps->p, before = ps->p[-1];
        if (c && c != ';' && c != '\n' && c != '#' && before != ' ' && before != '\t') {
            ps->err = "unexpected character in formula";
            return -1;
        }
    }
    if (!f->flops.n && !f->bytes.n) {
        ps->err = "expected flops= or bytes=";
        return -1;
    }
    return 0;
}

static void add(struct tp_work_set *set, const struct tp_work_fn *f)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->fn[i].name, f->name)) {
            set->fn[i] = *f;
            return;
        }
    set->fn[set->n++] = *f;
}

int tp_work_parse(struct tp_work_set **set, const char *text, char *why, size_t n)
{
    struct tp_work_set *out = malloc(sizeof *out);
    if (!out) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    if (*set)
        *out = **set;
    else
        out->n = 0;
    struct parser ps = {text, NULL, NULL, 0, 0, NULL};
    struct tp_work_fn f;
    while (*ps.p) {
        while (*ps.p == ';' || isspace((unsigned char)*ps.p))
            ps.p++;
        if (*ps.p == '#') {
            while (*ps.p && *ps.p != '\n')
                ps.p++;
            continue;
        }
        if (!*ps.p)
            break;
        const char *start = ps.p;
        if (entry(&ps, &f) < 0) {
            int at = (int)(ps.p - start), len = (int)strcspn(start, ";\n");
            snprintf(why, n, "%s at character %d of '%.*s'", ps.err, at + 1, len > 60 ? 60 : len,
                     start);
            free(out);
            return -1;
        }
        if (out->n >= TP_WORK_MAX_FNS && !tp_work_find(out, f.name)) {
            snprintf(why, n, "more than %d functions", TP_WORK_MAX_FNS);
            free(out);
            return -1;
        }
        add(out, &f);
    }
    free(*set);
    *set = out;
    return 0;
}

int tp_work_load(struct tp_work_set **set, const char *path, char *why, size_t n)
{
    char *text = tp_read_text_file(path, why, n);
    if (!text)
        return -1;
    int rc = tp_work_parse(set, text, why, n);
    free(text);
    return rc;
}

const struct tp_work_fn *tp_work_find(const struct tp_work_set *set, const char *name)
{
    for (int i = 0; set && i < set->n; i++)
        if (!strcmp(set->fn[i].name, name))
            return &set->fn[i];
    return NULL;
}

/* The stack machine. A binary operation whose right operand is a constant or a parameter takes it
 * from the instruction (emit fused them): "2*rows*cols" is three instructions. */
static int run(const struct tp_work_expr *e, const int64_t *vals, uint64_t *out)
{
    int64_t st[MAX_DEPTH + 2], *top = st;
    if (!e->n) {
        *out = 0;
        return 0;
    }
    for (const struct tp_work_insn *c = e->code, *end = c + e->n; c < end; c++) {
        int64_t b;
        switch (c->op) {
        case OP_CONST: *++top = c->k; continue;
        case OP_VAR: *++top = vals[c->var]; continue;
        case OP_NEG:
            if (__builtin_sub_overflow(0, *top, top))
                return -1;
            continue;
        case OP_NZ: *top = *top != 0; continue;
        default: break;
        }
        b = c->src == SRC_K ? c->k : c->src == SRC_V ? vals[c->var] : *top--;
        int64_t a = *top;
        switch (c->op) {
        case OP_ADD:
            if (__builtin_add_overflow(a, b, top))
                return -1;
            break;
        case OP_SUB:
            if (__builtin_sub_overflow(a, b, top))
                return -1;
            break;
        case OP_MUL:
            if (__builtin_mul_overflow(a, b, top))
                return -1;
            break;
        case OP_DIV:
            if (b == 0 || (a == INT64_MIN && b == -1))
                return -1;
            *top = a / b;
            break;
        case OP_MIN: *top = a < b ? a : b; break;
        default: *top = a > b ? a : b; break;
        }
    }
    if (top != st + 1 || *top < 0)
        return -1;
    *out = (uint64_t)*top;
    return 0;
}

int tp_work_eval(const struct tp_work_fn *f, const int64_t *vals, uint64_t *flops, uint64_t *bytes)
{
    if (run(&f->flops, vals, flops) < 0 || run(&f->bytes, vals, bytes) < 0)
        return -1;
    return 0;
}

void tp_work_shape(const struct tp_work_fn *f, const int64_t *vals, char *out, size_t n)
{
    size_t u = 0;
    if (n)
        out[0] = 0;
    for (int i = 0; i < f->nvars && u < n; i++)
        u += (size_t)snprintf(out + u, n - u, "%s%s=%lld", i ? " " : "", f->vars[i],
                              (long long)vals[i]);
}
