#include "common/suppress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int tp_suppress_parse(const char *text, char **out, char *why, size_t whylen)
{
    size_t len = strlen(text), used = 0;
    char *pats = malloc(len + 1);
    *out = NULL;
    if (!pats) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const char *e = nl ? nl : p + strlen(p);
        lineno++;
        while (p < e && is_blank(*p))
            p++;
        while (e > p && is_blank(e[-1]))
            e--;
        if (p < e && *p != '#') {
            if ((size_t)(e - p) <= 5 || strncmp(p, "leak:", 5) != 0) {
                snprintf(why, whylen, "line %d: expected leak:<pattern>, found '%.*s'", lineno,
                         (int)(e - p > 60 ? 60 : e - p), p);
                free(pats);
                return -1;
            }
            memcpy(pats + used, p + 5, (size_t)(e - p) - 5);
            used += (size_t)(e - p) - 5;
            pats[used++] = '\n';
        }
        p = nl ? nl + 1 : e + strlen(e);
    }
    if (used == 0) {
        free(pats);
        return 0;
    }
    pats[used - 1] = 0;
    *out = pats;
    return 0;
}

int tp_suppress_load(const char *path, char **out, char *why, size_t whylen)
{
    *out = NULL;
    char *text = tp_read_text_file(path, why, whylen);
    if (!text)
        return -1;
    int rc = tp_suppress_parse(text, out, why, whylen);
    free(text);
    return rc;
}

/* LSan's TemplateMatch over the pattern [t, te): each run of plain characters must occur in str
 * after the previous one (at its first occurrence), at the start after `^`, and `$` ends the
 * string unless a `*` came just before it. */
static int template_match(const char *t, const char *te, const char *str)
{
    if (!str || !*str)
        return 0;
    int start = 0, asterisk = 0;
    if (t < te && *t == '^') {
        start = 1;
        t++;
    }
    while (t < te) {
        if (*t == '*') {
            t++;
            start = 0;
            asterisk = 1;
            continue;
        }
        if (*t == '$')
            return *str == 0 || asterisk;
        if (*str == 0)
            return 0;
        const char *seg_end = t;
        while (seg_end < te && *seg_end != '*' && *seg_end != '$')
            seg_end++;
        size_t seg = (size_t)(seg_end - t);
        const char *at = memmem(str, strlen(str), t, seg);
        if (!at || (start && at != str))
            return 0;
        str = at + seg;
        t = seg_end;
        start = asterisk = 0;
    }
    return 1;
}

int tp_suppress_match(const char *patterns, const char *str)
{
    for (const char *p = patterns; p && *p;) {
        const char *nl = strchr(p, '\n');
        const char *e = nl ? nl : p + strlen(p);
        if (template_match(p, e, str))
            return 1;
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}
