/* Parsers of single configuration values (common/parse.c), for the TPROF_* table and the CLI. */
#ifndef TPROF_COMMON_PARSE_H
#define TPROF_COMMON_PARSE_H

#include <stdint.h>

/* Single-value parsers, shared with the CLI. Each returns 0 on success, else -1 and sets *why. */
int tp_parse_int(const char *s, long min, long max, long *out, const char **why);
int tp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why);
int tp_parse_double(const char *s, double min, double max, double *out, const char **why);
int tp_parse_size(const char *s, uint64_t *out, const char **why); /* 64M, 1G, 4096 */
int tp_parse_signal(const char *s, int *out, const char **why);    /* USR1, SIGUSR2, 10 */
int tp_parse_schedule(const char *s, int *wait, int *warmup, int *active, const char **why);
int tp_parse_bool(const char *s, int *out, const char **why); /* 0/1 yes/no true/false on/off */
/* A TPROF_OPS list: no control character, every [ closed, at least one pattern that selects. */
int tp_parse_ops(const char *s, const char **why);

#endif
