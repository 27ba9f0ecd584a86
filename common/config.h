/* Configuration: every TPROF_* environment variable, parsed and validated once, by one table.
 *
 * Parsing never fails: a malformed value produces one warning line
 *   tprof: TPROF_X=<value>: <why>; using <default>
 * passed to the caller's warn callback, and the default is used. The preloaded library runs it
 * at start-up; `tprof run` runs the same parser over the environment it hands to the program and
 * refuses to start it on any warning. Booleans accept 0/1, yes/no, true/false and on/off, in any
 * case. */
#ifndef TPROF_CONFIG_H
#define TPROF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/parse.h"

struct tp_path_ctx;

/* Constructors, loaders and initialisers are set-up, not a model's work, whatever their names
 * contain (darknet's make_convolutional_layer matched *conv*, rand_normal *norm*): as ops they
 * would also move the start of the persistent heap. Nor are allocators and free functions
 * (ggml_aligned_malloc, ggml_free): the heap's call sites go through them to their callers; nor
 * barriers, which are waiting (ggml_barrier's spin is counted as such: track/ops/wait.c). */
#define TP_DEFAULT_EXCLUDE                                                                         \
    "!make_*,!parse_*,!load_*,!free_*,!rand*,!print*,!*init*,!*alloc*,!*_free,!*barrier*"
#define TP_DEFAULT_OPS                                                                             \
    "*gemm*,*gemv*,*matmul*,*conv*,*attention*,*softmax*,*norm*,*im2col*,*col2im*,"                \
    "*pool*,*relu*,*gelu*,*sigmoid*,*dropout*,*embedding*,*forward*,*backward*,*update*"           \
    "," TP_DEFAULT_EXCLUDE

#define TP_MAX_STACK 64

struct tp_work_set;

struct tp_config {
    char *output;                  /* "stderr" (default), "none", or a path template */
    char *json;                    /* path template or NULL */
    char *trace;                   /* path template or NULL */
    char *folded;                  /* path template or NULL */
    char *ops;                     /* comma-separated globs; "!glob" excludes */
    int stack;                     /* frames per call site, 1..TP_MAX_STACK, default 8 */
    int warmup;                    /* calls per op left out of percentiles, default 1 */
    int top;                       /* rows per report section, default 10 */
    double peak_gflops, peak_gbps; /* 0 = not set */
    char *step;                    /* function whose calls are steps, or NULL */
    int sched_wait, sched_warmup, sched_active; /* -1 when TPROF_SCHEDULE is unset */
    int signal;                                 /* report-on-demand signal number, 0 = none */
    int disable;                                /* 1: pass everything through */
    int debuginfod;     /* 1: symbolisation may ask the DEBUGINFOD_URLS servers, default 0 */
    uint64_t max_sites; /* a fixed cap on the call-site table, default 0 (none: the budget) */
    uint64_t max_ops;   /* a fixed cap on the op table, default 0 (none: the budget) */
    double snapshot_s;  /* periodic snapshot period in seconds, 0 = off */
    uint64_t trace_max; /* trace size budget in bytes, default 64 MiB */
    uint64_t trace_cap; /* op-call events kept in the trace, default 1000000 */
    int json_sites;     /* sites written to JSON, default 1000 (0 = all) */
    int plt;            /* 1: hook shared-library exports through the PLT/GOT (default) */
    double hook_ns;     /* cost of one non-op -finstrument-functions hook; -1: measure it */
    int sample_hz;      /* CPU-time samples per second of where time outside ops goes, 0 = off */
    int detail;         /* TPROF_DETAIL: 0 the short text report (default), 1 the full one */
    char *suppress; /* TPROF_SUPPRESS's leak patterns, one per line (common/suppress.h), or NULL */
    double demote;  /* ops whose calls average less than this many hooks' cost are counted,
                           not timed (track/ops/demote.c); 0 = off, default 500 */
    char *html;     /* path template of the HTML report, or NULL */
    char *pprof;    /* path template of the heap's pprof profile, or NULL */
    char *pprof_time;         /* path template of op time's pprof profile, or NULL */
    struct tp_work_set *work; /* TPROF_WORK and TPROF_WORK_FILE compiled (common/workspec.h) */
    uint64_t memory_budget; /* bytes the call-site table may use; 0: max(5% of peak RSS, 64 MiB) */
};

typedef void (*tp_warn_fn)(const char *line);
typedef const char *(*tp_getenv_fn)(const char *name);

/* Fill c with defaults, then apply every TPROF_* variable found through get. Strings are copied
 * with malloc. Returns the number of warnings issued. A setting tprof no longer has (below) is
 * said in one line through warn too, but is not a warning: not counted, and nothing to refuse. */
int tp_config_load(struct tp_config *c, tp_getenv_fn get, tp_warn_fn warn);
/* Whether name is a setting tprof no longer has (TPROF_SAMPLE, TPROF_SAMPLE_SEED: the sampled
 * heap), which is accepted and ignored. */
int tp_config_gone(const char *name);
void tp_config_defaults(struct tp_config *c);
/* getenv(3) as a tp_getenv_fn, for callers that read the environment as it is now. */
const char *tp_env_get(const char *name);
void tp_config_free(struct tp_config *c);

/* Check, before anything runs, that every output the configuration names can be written: the
 * template expands for ctx and tp_check_output() accepts the result. A bad one is one warning
 * line naming the variable, its value and the reason, and is replaced by its default (the text
 * report goes to stderr; the JSON report, the trace and the folded stacks are not written).
 * Nothing is checked when c->disable. Returns the number of warnings. */
int tp_config_check_outputs(struct tp_config *c, const struct tp_path_ctx *ctx, tp_warn_fn warn);

/* 1 when name matches the comma-separated glob list (case-insensitive; "!glob" entries
 * exclude and win over includes). */
int tp_ops_match(const char *patterns, const char *name);

#endif
