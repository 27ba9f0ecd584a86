/* Parameter passing for work entries (see workabi.h). */
#include "common/workabi.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int has_word(const char *s, size_t len, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= len; i++)
        if (!strncmp(s + i, w, wl) && (i == 0 || !isalnum((unsigned char)s[i - 1])) &&
            (i + wl == len || !(isalnum((unsigned char)s[i + wl]) || s[i + wl] == '_')))
            return 1;
    return 0;
}

/* The C type text [s, s + len) (without the parameter's name) as size, class and signedness. */
static void classify(const char *s, size_t len, struct tp_work_param *p)
{
    p->is_signed = !has_word(s, len, "unsigned") && !has_word(s, len, "size_t") &&
                   !has_word(s, len, "uintptr_t") && !has_word(s, len, "uint64_t") &&
                   !has_word(s, len, "uint32_t") && !has_word(s, len, "_Bool") &&
                   !has_word(s, len, "bool");
    if (memchr(s, '*', len) || memchr(s, '[', len)) {
        p->size = 8;
        p->is_signed = 0;
    } else if (has_word(s, len, "struct") || has_word(s, len, "union") ||
               (has_word(s, len, "long") && has_word(s, len, "double"))) {
        p->other = 1;
    } else if (has_word(s, len, "float") || has_word(s, len, "double")) {
        p->is_float = 1;
        p->size = has_word(s, len, "float") ? 4 : 8;
    } else if (has_word(s, len, "char") || has_word(s, len, "_Bool") || has_word(s, len, "bool")) {
        p->size = 1;
    } else if (has_word(s, len, "short")) {
        p->size = 2;
    } else if (has_word(s, len, "long") || has_word(s, len, "size_t") ||
               has_word(s, len, "ssize_t") || has_word(s, len, "ptrdiff_t") ||
               has_word(s, len, "int64_t") || has_word(s, len, "uint64_t") ||
               has_word(s, len, "intptr_t") || has_word(s, len, "uintptr_t")) {
        p->size = 8;
    } else {
        p->size = 4; /* int, unsigned, int32_t, an enum */
    }
}

int tp_work_proto(const char **pp, struct tp_work_param *out, int *n, const char **why)
{
    const char *p = *pp + 1;
    *n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!strncmp(p, "void)", 5) || *p == ')') {
        *pp = p + (*p == ')' ? 1 : 5);
        return 0;
    }
    for (;;) {
        const char *s = p;
        while (*p && *p != ',' && *p != ')' && *p != ';' && *p != '\n')
            p++;
        if (*p != ',' && *p != ')') {
            *why = "expected ')' after the parameters";
            return -1;
        }
        const char *e = p;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        const char *nm = e;
        while (nm > s && (isalnum((unsigned char)nm[-1]) || nm[-1] == '_'))
            nm--;
        if (nm == e || nm == s || isdigit((unsigned char)*nm)) {
            *why = "expected a type and a name for each parameter";
            return -1;
        }
        if (*n >= TP_WORK_MAX_PARAMS) {
            *why = "more than 16 parameters";
            return -1;
        }
        if ((size_t)(e - nm) >= sizeof out->name) {
            *why = "parameter name too long";
            return -1;
        }
        struct tp_work_param *q = &out[(*n)++];
        memset(q, 0, sizeof *q);
        memcpy(q->name, nm, (size_t)(e - nm));
        classify(s, (size_t)(nm - s), q);
        if (*p++ == ')')
            break;
    }
    *pp = p;
    return 0;
}

int tp_work_place(const struct tp_work_param *params, int nparams, char (*vars)[32], int nvars,
                  struct tp_work_place *out, char *why, size_t n)
{
    struct tp_work_place at[TP_WORK_MAX_PARAMS];
    int ints = 0, sses = 0, stack = 0, placed = 0;
    for (; placed < nparams && placed < TP_WORK_MAX_PARAMS && !params[placed].other; placed++) {
        const struct tp_work_param *p = &params[placed];
        struct tp_work_place *a = &at[placed];
        a->size = p->size;
        a->is_signed = p->is_signed;
        a->is_float = p->is_float;
        if (p->is_float ? sses < 8 : ints < 6) {
            a->where = p->is_float ? TP_WORK_SSE : TP_WORK_INT;
            a->idx = (uint8_t)(p->is_float ? sses++ : ints++);
        } else {
            a->where = TP_WORK_STACK;
            a->idx = (uint8_t)stack++;
        }
    }
    for (int v = 0; v < nvars; v++) {
        int i = 0;
        while (i < nparams && strcmp(params[i].name, vars[v]))
            i++;
        if (i >= nparams) {
            snprintf(why, n, "parameter '%s': no parameter has that name", vars[v]);
            return -1;
        }
        if (i >= placed) {
            snprintf(why, n, "parameter '%s': %s", vars[v],
                     params[i].other ? "its type is not an integer or a float"
                                     : "it comes after one passed in a way tprof does not read");
            return -1;
        }
        out[v] = at[i];
    }
    return 0;
}

int64_t tp_work_value(uint64_t raw, const struct tp_work_place *p)
{
    if (p->is_float) {
        double x;
        if (p->size == 4) {
            float f;
            uint32_t b = (uint32_t)raw;
            memcpy(&f, &b, sizeof f);
            x = f;
        } else {
            memcpy(&x, &raw, sizeof x);
        }
        if (!(x > -9e18 && x < 9e18)) /* NaN too */
            return x > 0 ? INT64_MAX : x < 0 ? INT64_MIN : 0;
        int64_t t = (int64_t)x;
        return (double)t == x ? t : t + (x > 0 ? 1 : -1);
    }
    if (p->size >= 8)
        return (int64_t)raw;
    unsigned sh = 64 - 8u * p->size;
    return p->is_signed ? (int64_t)(raw << sh) >> sh : (int64_t)((raw << sh) >> sh);
}
