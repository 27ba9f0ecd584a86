/* Parsers of single configuration values, shared by the TPROF_* table (common/config.c) and the
 * CLI's flags: each accepts exactly one spelling family and says why it refused a value. */
#include "common/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tp_parse_int(const char *s, long min, long max, long *out, const char **why)
{
    char *end;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s) {
        *why = "not an integer";
        return -1;
    }
    if (v < min || v > max) {
        *why = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}

/* strtoull skips blanks and then takes a minus sign, negating modulo 2^64: " -18446744073709551600"
 * would be read as 16. */
static int negative(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '-';
}

int tp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why)
{
    char *end;
    if (!s || !*s || negative(s)) {
        *why = s && *s ? "negative" : "empty value";
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || end == s) {
        *why = "not an integer";
        return -1;
    }
    if (v < min || v > max) {
        *why = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}

int tp_parse_double(const char *s, double min, double max, double *out, const char **why)
{
    char *end;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v)) {
        *why = "not a number";
        return -1;
    }
    if (v < min || v > max) {
        *why = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}

int tp_parse_size(const char *s, uint64_t *out, const char **why)
{
    char *end;
    if (!s || !*s || negative(s)) {
        *why = "not a size";
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) {
        *why = "not a size";
        return -1;
    }
    uint64_t mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 0: break;
    case 'K':
        mul = 1ull << 10;
        end++;
        break;
    case 'M':
        mul = 1ull << 20;
        end++;
        break;
    case 'G':
        mul = 1ull << 30;
        end++;
        break;
    default: *why = "unknown unit (use K, M or G)"; return -1;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end) {
        *why = "trailing characters";
        return -1;
    }
    if (v > UINT64_MAX / mul) {
        *why = "too large";
        return -1;
    }
    *out = v * mul;
    return 0;
}

static const struct {
    const char *name;
    int sig;
} signames[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},     {"QUIT", SIGQUIT},
    {"ALRM", SIGALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"URG", SIGURG},
};

int tp_parse_signal(const char *s, int *out, const char **why)
{
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    if (isdigit((unsigned char)*s)) {
        long v;
        if (tp_parse_int(s, 1, SIGRTMAX, &v, why) < 0)
            return -1;
        if (v == SIGKILL || v == SIGSTOP || v == SIGSEGV || v == SIGBUS || v == SIGFPE ||
            v == SIGILL) {
            *why = "that signal cannot be used for reports";
            return -1;
        }
        *out = (int)v;
        return 0;
    }
    const char *n = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
    for (size_t i = 0; i < sizeof signames / sizeof signames[0]; i++) {
        if (strcasecmp(n, signames[i].name) == 0) {
            *out = signames[i].sig;
            return 0;
        }
    }
    *why = "unknown signal (use USR1, USR2, HUP, QUIT, ALRM, PROF, WINCH, URG or a number)";
    return -1;
}

int tp_parse_schedule(const char *s, int *wait, int *warmup, int *active, const char **why)
{
    long v[3];
    char part[32];
    const char *p = s;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if ((i < 2 && !colon) || (i == 2 && colon) || n == 0 || n >= sizeof part) {
            *why = "expected wait:warmup:active, three whole numbers";
            return -1;
        }
        memcpy(part, p, n);
        part[n] = 0;
        if (tp_parse_int(part, 0, 1000000000L, &v[i], why) < 0) {
            *why = "expected wait:warmup:active, three whole numbers";
            return -1;
        }
        p = colon ? colon + 1 : p + n;
    }
    if (v[2] == 0) {
        *why = "active must be at least 1";
        return -1;
    }
    *wait = (int)v[0];
    *warmup = (int)v[1];
    *active = (int)v[2];
    return 0;
}

int tp_parse_bool(const char *s, int *out, const char **why)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = 0;
            return 0;
        }
    }
    *why = "expected 0/1, yes/no, true/false or on/off";
    return -1;
}

/* 1 when every [ in the glob s[0..n) is closed the way fnmatch(3) reads it: a ] right after the
 * [ (or after [! / [^) is a member, [:class:], [=e=] and [.c.] are members, \ escapes. */
static int brackets_closed(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] != '[')
            continue;
        size_t j = i + 1;
        if (j < n && (s[j] == '!' || s[j] == '^'))
            j++;
        if (j < n && s[j] == ']')
            j++;
        for (; j < n && s[j] != ']'; j++) {
            if (s[j] == '[' && j + 1 < n &&
                (s[j + 1] == ':' || s[j + 1] == '=' || s[j + 1] == '.')) {
                char close = s[j + 1];
                size_t k = j + 2;
                while (k + 1 < n && !(s[k] == close && s[k + 1] == ']'))
                    k++;
                if (k + 1 >= n)
                    return 0;
                j = k + 1;
            }
        }
        if (j >= n)
            return 0;
        i = j;
    }
    return 1;
}

#define MAX_PATTERN 255 /* tp_ops_match's longest entry */

int tp_parse_ops(const char *v, const char **why)
{
    int selects = 0;
    if (!v || !*v) {
        *why = "empty value";
        return -1;
    }
    for (const char *p = v; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            *why = "contains a control character";
            return -1;
        }
    }
    for (const char *p = v;;) {
        const char *comma = strchr(p, ',');
        const char *e = comma ? comma : p + strlen(p);
        while (p < e && isspace((unsigned char)*p))
            p++;
        while (e > p && isspace((unsigned char)e[-1]))
            e--;
        int exclude = p < e && *p == '!';
        const char *g = p + exclude;
        while (g < e && isspace((unsigned char)*g))
            g++;
        if (g < e) {
            if ((size_t)(e - g) > MAX_PATTERN) {
                *why = "a pattern longer than 255 characters";
                return -1;
            }
            if (!brackets_closed(g, (size_t)(e - g))) {
                *why = "a [ in a pattern is not closed by ]";
                return -1;
            }
            selects |= !exclude;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    if (!selects) {
        *why = "no pattern selects a function (only commas, blanks or !exclusions)";
        return -1;
    }
    return 0;
}
