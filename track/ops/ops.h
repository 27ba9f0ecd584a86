/* Ops: names and matching, timing, nesting, waits, demotion: the one header of track/ops/ for code outside it. */
#ifndef TPROF_TRACK_OPS_OPS
#define TPROF_TRACK_OPS_OPS

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "track/runtime.h"

/* The op registry and the per-thread op stack (implemented in track/ops/ops.c; the report made of
 * them is track/ops/ops_collect.c's).
 *
 * Every way tprof sees an op (typed BLAS wrappers, -finstrument-functions hooks, PLT/GOT hooks
 * on shared-library exports, the annotation API) ends in tp_op_begin()/tp_op_end(). ops.c owns
 * the statistics: calls, total/self time, latency histogram with warm-up calls apart, FLOPs,
 * bytes, shapes, bytes allocated while the op ran; and the steps (TPROF_STEP / tprof_step()).
 *
 * All functions are safe to call from any thread, and cheap; none allocates on the hot path
 * except the first time an op name or a shape is seen (then under the recursion guard). */
/* Where an op was seen; goes to the report as op.source. */
enum tp_op_source { TP_SRC_BLAS, TP_SRC_INSTR, TP_SRC_PLT, TP_SRC_API };

/* A typed op's call shape (gemm: m, n, k, transposes, layout; gemv: m, n, trans; symm, trmm,
 * trsm: m, n, side, uplo; syrk: n, n, k, trans, uplo; dot, axpy: n only, m = 0). Characters are
 * 0 where they do not apply. */
struct tp_shape_key {
    int64_t m, n, k;
    char transa, transb, layout;
    char side, uplo;                /* 'L'/'R' and 'U'/'L' for symm, syrk, trmm, trsm */
    const struct tp_work_fn *named; /* TPROF_WORK's entry: m, n, k, more[] its parameters */
    int64_t more[5];
    /* A ggml node's data types, its first source's and its second's (ggml_type_name's static
     * strings: "q4_0", "f32"), NULL when unknown or none; with them more[0] is its batch. */
    const char *dtype[2];
    /* not part of the key: 0, or this thread's number for this very key, so that a call with
     * the key of the thread's last one finds its slot without comparing (track/work/argwork.c) */
    uint64_t token;
};

/* Intern an op by name; the same name always gives the same id. kind: matmul, gemv, conv,
 * attention, norm, softmax, region, op, ... Returns an id >= 0, or -1 when the op table
 * (TPROF_MAX_OPS) is full (then the report is marked partial). */
int tp_op_intern(const char *name, const char *kind, enum tp_op_source src);
/* An op of TP_SRC_PLT was interned: until then no hooked export can be the op open. */
extern _Atomic int tp_ops_plt_any;

/* Open op id on this thread. key identifies the frame (the function address for instrumented
 * functions, 0 otherwise) and sp is a frame address of the caller (0 if unknown): together they
 * let tp_op_end() repair a stack that longjmp or an exception skipped. Returns 1 if the op was
 * pushed, 0 if not (disabled, stack full, outside the TPROF_SCHEDULE window). */
int tp_op_begin(int id, uintptr_t key, uintptr_t sp);

/* Close the innermost open op matching (id, key). flops/bytes add to the op's work (0 = none);
 * shape may be NULL. An end with no matching begin is counted as unpaired and dropped. Returns
 * the call's duration in ticks (the hooks' cost inside it taken out), TP_OP_NO_TIME when nothing
 * was closed or the call recursed into an open call of the same op. */
#define TP_OP_NO_TIME UINT64_MAX
uint64_t tp_op_end(int id, uintptr_t key, uintptr_t sp, uint64_t flops, uint64_t bytes,
                   const struct tp_shape_key *shape);

/* Waiting and CPU samples (track/ops/wait.c), charged to the op this thread works for: its innermost
 * open op, or on a thread with none open (a worker of an OpenMP or BLAS pool) the op that another
 * thread began last among those running. A wait of ticks of kinds (tp_wait_kind bits); a sample of
 * class cls (tp_sample_class). tp_ops_on_sample returns the id + 1 of the op that took it, 0 for
 * none. Both
 * async-signal-safe. */
void tp_ops_on_wait(uint64_t ticks, unsigned kinds);
int tp_ops_on_sample(int cls);
/* Innermost open op on this thread, -1 if none. */
int tp_ops_current(void);
/* 1 when the innermost open op on this thread came from source src. */
int tp_op_top_is(enum tp_op_source src);
/* Add work to the innermost open op of this thread (annotation API). */
void tp_op_add_work(uint64_t flops, uint64_t bytes);

/* Called by the malloc hook for every recorded allocation: attribute it to the innermost op. */
void tp_ops_on_alloc(size_t bytes);
/* Name of op id (valid for the life of the process), NULL if unknown. */
const char *tp_ops_name(int id);
/* Shapes kept per op (slots of tp_ops_shape_desc). */
#define TP_OPS_MAX_SHAPES 64

/* Kind of op id (matmul, conv, ...), NULL if unknown. */
const char *tp_ops_kind(int id);
/* CLOCK_MONOTONIC ns of the first op begin or step anywhere, 0 while none has happened. */
extern __attribute__((visibility("hidden"))) _Atomic uint64_t tp_ops_first_ns_v;
static inline uint64_t tp_ops_first_ns(void)
{
    /* inline: the allocation path asks on every call */
    return atomic_load_explicit(&tp_ops_first_ns_v, memory_order_relaxed);
}

/* The first op or step has begun: remember when (tp_ops_first_ns) and look at the threads. */
void tp_ops_note_first(void);

/* Steps: each call of the TPROF_STEP function, or each tprof_step() marker, is one iteration;
 * with no TPROF_STEP, each evaluation of a ggml graph (tp_ggml_step_function). name: the
 * function's, which names the steps when TPROF_STEP did not (NULL: not known). */
void tp_step_begin(const char *name);
void tp_step_end(void);
void tp_step_mark(void);

/* Non-op -finstrument-functions (__cyg_profile_*) hooks run so far by this thread, and the
 * measured cost of one, in clock ticks << 16 (0 until measured). The hooks (preload/hook/hook_cyg.c)
 * count and measure them; an op's time less (hooks run during it) x cost is the time it would
 * have taken without tprof's hooks. Defined here, where every op's time is corrected, so that
 * the op core needs nothing from the hooks above it. */
extern TP_TLS uint64_t tp_cyg_hooks;
extern uint64_t tp_cyg_hook_cost_fp;
/* Called at each op begin and end, with the op on top of this thread's stack before it (-1:
 * none), once set: by track/ops/demote.c when it demotes its first op, to learn which ops the counted
 * calls run in. A pointer, so that this core needs nothing from the demotion above it. */
typedef void (*tp_ops_boundary_fn)(int top);
extern _Atomic tp_ops_boundary_fn tp_ops_boundary_hook;

/* Ops interned so far, and the most the table can ever give ids to (TPROF_MAX_OPS, or the
 * directory's reach; 0 when ops are off): a table indexed by op id maps that many entries
 * reserve-only (tp_pages_map) and touches those of the first ones. */
int tp_ops_count(void);
int tp_ops_id_limit(void);

/* Set-up (from tp_init, after the configuration is read). */
void tp_ops_init(void);
/* The op names' lock around fork, and a child's counts restarted. */
void tp_ops_fork_prepare(void);
void tp_ops_fork_parent(void);
void tp_ops_fork_child(void);

/* Ops too short to time: after its first calls, an op whose calls are too short for the cost of
 * timing them (a few hundred instructions per call, which land in its callers) to stay small is
 * demoted to a count. Its later calls are counted, not timed; their time is its caller's (the
 * enclosing op's self time), the cheap hook that counts them is taken out like any non-op hook
 * (tp_cyg_hooks), and the report lists each demoted op (ops[].demoted) with its exact calls.
 *
 * The rule: of an op's first TP_DEMOTE_CALLS + 1 calls, the first is left out (cold caches, lazy
 * binding), and if more than half of the other TP_DEMOTE_CALLS (their median) took less than
 * TPROF_DEMOTE times the cost of one hook, the op is demoted; the median of those calls is the
 * note's time per call. That cost is TPROF_HOOK_NS, else the lowest measured on this host
 * (report/peaks/hookcache.c) when it is lower than this run's measurement, else this run's: one run's
 * measurement moves with the load, and the line with it, across the ops near it; the host's
 * lowest does not. Only the line uses the host's figure: the hooks taken out of the ops' times
 * are this run's (tp_cyg_hook_cost_fp), the cost the program paid.
 * TPROF_DEMOTE=0, or TPROF_HOOK_NS=0, turns it off. */
struct tp_report;

#define TP_DEMOTE_CALLS 64
/* Ops that can be demoted; slot 0 is a sink that non-op hooks may count into. */
#define TP_DEMOTE_SLOTS 256

/* Per thread, calls counted per demote slot: the -finstrument-functions hooks and the PLT's
 * counting path add to it directly (one increment, no atomic, no cache line shared between
 * threads). Read for the report once the thread registered (tp_demote_thread), which sets
 * tp_demote_counting (cleared when the thread ends). */
extern TP_TLS uint64_t tp_demote_tcount[TP_DEMOTE_SLOTS];
extern TP_TLS uint8_t tp_demote_counting;
/* Op id → its demote slot, 0 while timed (tp_ops_id_limit() entries; NULL when off). */
extern _Atomic uint8_t *tp_demote_slot_of;

/* After tp_ops_init(). */
void tp_demote_init(void);
/* The cost of one hook is known (ns; given: TPROF_HOOK_NS, else measured, after
 * tp_cyg_hook_cost_fp is set): the line is drawn, from the host's cache when that is lower. Once,
 * before an instrumented call is judged. */
void tp_demote_hook_known(double ns, int given);
/* The line drawn from the host's cache alone, with nothing measured (the hooked exports of a
 * process without instrumented functions): 1 when it was, or when nothing is demoted; 0 when the
 * cache has no figure for this CPU (measure, then tp_demote_hook_known). */
int tp_demote_line_cached(void);
/* At the process's end: this run's measurement into the host's cache, when it is lower than what
 * the cache holds (or the cache has none for this CPU). */
void tp_demote_keep_best(void);
/* One call of op id ended, `ticks` long (tp_op_end's result: TP_OP_NO_TIME is ignored). Called
 * by the hooks that can demote (-finstrument-functions, PLT). */
void tp_demote_observe(int id, uint64_t ticks);
/* The demote slot of op id, 0 while it is timed. */
static inline int tp_demote_slot(int id)
{
    _Atomic uint8_t *v = tp_demote_slot_of;
    return v && id >= 0 ? atomic_load_explicit(&v[id], memory_order_relaxed) : 0;
}
/* This thread's tp_demote_tcount is read for the report from now on (and added to the totals
 * when the thread ends). Before a thread counts its first call. */
void tp_demote_thread(void);
/* One call counted in demote slot `slot` by this thread, registered first if need be, and taken
 * out of the enclosing op like a hook (the PLT's slow way to count). */
void tp_demote_count_call(int slot);
/* Calls of op id counted, not timed, so far. */
uint64_t tp_demote_counted(int id);
/* The ticks of op id's counted calls, estimated (0 while it is timed): their number times the
 * median of its judged calls under the line, and no more than the self time of the ops they ran
 * in when every one of them ran in an op (*bounded: 1 when that bound was taken). */
uint64_t tp_demote_est_ticks(int id, int *bounded);
/* Op boundaries say which op the counted calls ran in (tp_ops_boundary_hook, set once an op is
 * demoted): the calls counted on this thread since its last boundary ran in op top (-1: none). */
void tp_demote_boundary(int top);
/* A note per demoted op, and the cost of one hook (program.hook_ns) that the advice on them
 * counts. */
void tp_demote_collect(struct tp_report *r);

/* Ops by name: which function is an op (TPROF_OPS), which is the step (TPROF_STEP), the family of
 * an op from its name, and the work (FLOPs, bytes) of a call from its arguments: for the BLAS
 * wrappers (below) and, by work entries (common/workspec.h), for the program's own functions and
 * the exports whose work tprof knows. One set of rules for every
 * hook that names ops: the -finstrument-functions hooks, the PLT hooks and the BLAS wrappers. */
/* The family of an op from its name: matmul, gemv, conv, attention, softmax, norm, pool,
 * activation, ... else "op". */
const char *tp_names_kind(const char *name);

/* TPROF_STEP names this function (plain, or demangled with or without its parameter list). */
int tp_names_is_step(const char *name);

/* TPROF_OPS selects this function (its globs, case-insensitive, "!glob" excluding). */
int tp_names_is_op(const char *name);

/* TPROF_OPS is not set: then every C export of the program's own libraries (not a system
 * library's) is an op, its name matching or not, but for the set-up the default list excludes
 * (make_*, load_*, ...): the function that takes the time may be named anything. Tiny ones are
 * demoted to counts after their first calls (track/ops/demote.c). */
int tp_names_default(void);
/* Under the default list: is this export an op? (Not excluded by it.) */
int tp_names_default_export(const char *name);

/* TPROF_OPS has name as an entry of its own, written out in full (no glob caught it): the user
 * vouches for that function. */
int tp_names_exact(const char *name);

/* The work of one call, from its arguments (docs/ops.md; "elem" is the element size, 8 and 16
 * for complex, whose multiply-add is 8 real FLOPs, not 2):
 *   gemm  m,n,k       2·m·n·k FLOPs (8· complex); elem·(m·k + k·n + m·n, + m·n when beta ≠ 0)
 *   gemv  m,n         2·m·n (8· complex);         elem·(m·n + len x + len y, + len y when beta ≠ 0)
 *   symm  m,n, A ka²  2·ka·m·n;                   elem·(ka(ka+1)/2 + 2·m·n, + m·n when beta ≠ 0)
 *   syrk  n,k         k·n·(n+1);                  elem·(n·k + n(n+1)/2, + n(n+1)/2 when beta ≠ 0)
 *   trmm, trsm m,n    ka·m·n;                     elem·(ka(ka+1)/2 + 2·m·n)
 *   dot   n           2·n;                        elem·2·n
 *   axpy  n           2·n;                        elem·3·n
 * where ka is m when A is on the left (side L) and n when it is on the right. */
struct tp_work {
    uint64_t flops, bytes;
};

/* C = alpha op(A) op(B) + beta C. */
struct tp_work tp_work_gemm(int64_t m, int64_t n, int64_t k, int beta_nz, unsigned elem, int cplx);
/* y = A x (x has n elements, y m) or A^T x (trans: x m, y n). */
struct tp_work tp_work_gemv(int64_t m, int64_t n, int trans, int beta_nz, unsigned elem, int cplx);
/* symm: A symmetric, m x m on the left, n x n on the right; one triangle read. */
struct tp_work tp_work_symm(int right, int64_t m, int64_t n, int beta_nz, unsigned elem);
/* syrk: C = alpha A A^T + beta C, C n x n of which one triangle is written, A n x k. */
struct tp_work tp_work_syrk(int64_t n, int64_t k, int beta_nz, unsigned elem);
/* trmm, trsm: A triangular (m x m left, n x n right), B m x n read and written. */
struct tp_work tp_work_tri(int right, int64_t m, int64_t n, unsigned elem);
/* dot (2 streams), axpy (3 streams) of n elements: 2·n FLOPs. */
struct tp_work tp_work_vec(int64_t n, unsigned elem, unsigned streams);

/* The work entry of a function by name: TPROF_WORK's, else a built-in one (darknet's gemm, its
 * inner loops and im2col_cpu, with their prototypes), else NULL. */
struct tp_work_fn;
const struct tp_work_fn *tp_names_work(const char *name);

/* The report's ops, steps and op-time stacks from what ops.c and optree.c recorded. Above the op
 * core: it reads the op table (names, kinds, shapes) and converts its ticks to nanoseconds. */
struct tp_report;

/* Fill r->ops and r->steps, and the notes on what was not recorded (from tp_collect). */
void tp_ops_collect(struct tp_report *r);
/* 1 when some op was called or a step ended: what tp_ops_collect would report, without
 * collecting it. */
int tp_ops_any_work(void);
/* Fill r->opstacks (times in ns) and r->opstacks_dropped from the op-stack table, named by op. */
void tp_optree_collect(struct tp_report *r);
/* The nanoseconds per tick the last tp_ops_collect() used: other tables of the same report
 * convert with it, so that their times add up exactly to the ops'. */
double tp_ops_ns_per_tick(void);
/* The shape in slot `slot` of op id as the report writes it ("m=64 n=32 k=16 NN row"): 0, or -1
 * when there is no such shape. */
int tp_ops_shape_desc(int id, int slot, char *out, size_t n);

/* The op table as ops.c records into it, for ops_collect.c, which turns it into the report.
 *
 * ops_table.c holds the records and names; ops.c writes the statistics while the program runs
 * (atomics: ops end on many threads at once); ops_collect.c only reads them, at the end of a
 * run or of a window. Outside the op core (ops*.c, demote.c, steps.c) everyone goes through
 * ops.h. */
struct tp_histo;

/* Ops open at once on one thread; deeper calls are counted as overflow and not timed. */
#define TP_OPS_MAX_DEPTH 128

/* One shape of one op. A slot is claimed (used 0 -> 1), its key written, then published
 * (used 2); only then are its counters meaningful. */
struct tp_shape_rec {
    struct tp_shape_key key;
    _Atomic uint64_t calls, ticks, flops, bytes;
    _Atomic int used;                                        /* 0 free, 1 being filled, 2 ready */
    _Atomic uint64_t sh_calls, sh_ticks, sh_flops, sh_bytes; /* other threads' (see tp_op_rec) */
};

/* One op: its name and statistics. Times are in clock ticks (common/clock.h).
 *
 * The calls' figures (calls, total, self, flops, bytes, warm_*, wall, hook_total, the histogram,
 * the shapes' counters) are written by one thread, the op's owner (the first to end a call of it), with
 * plain loads and stores: most ops are called from one thread, and a locked add costs as much as
 * the rest of an op's bookkeeping. The calls other threads end go to the sh_ figures and a
 * histogram of their own (sh_histo, made at the first), with atomic adds; the report adds the
 * two (tp_op_calls and co.). */
struct tp_op_rec {
    const char *name, *kind;
    enum tp_op_source src;
    int never_step; /* an allocator or free function (tp_lifeunit_never_step), asked once */
    uint64_t hash;
    _Atomic uint64_t calls, total, self, flops, bytes, alloc_bytes, alloc_count;
    _Atomic uint64_t warm_calls, warm_ticks, skipped;
    _Atomic uintptr_t owner; /* the owner thread's token, 0 until a call ends */
    _Atomic uint64_t sh_calls, sh_total, sh_self, sh_flops, sh_bytes, sh_warm_calls, sh_warm_ticks,
        sh_wall, sh_hook_total;
    struct tp_histo *_Atomic sh_histo;
    /* Wall-clock time (track/ops/opwall.h): the word of threads inside the op, the busy periods'
     * sum in uncorrected ticks, and the ticks the hook-cost correction took out of total, to
     * take the same fraction out of the wall-clock sum. */
    _Atomic uint64_t in_total, wall, hook_total;
    _Atomic int flops_known;
    /* The op every call began directly inside: its id + 1; 0 before the first call, -1 once
     * calls began inside different ops or outside every op (report/verdict_nested.c). */
    _Atomic int parent;
    /* Waiting (track/ops/wait.c), by every thread alike: ticks inside hooked waiting calls and the
     * kinds of those calls (tp_wait_kind bits); CPU-time samples charged to the op, and of those
     * the ones in an OpenMP runtime's spin code and inside a hooked waiting call. */
    _Atomic uint64_t wait_ticks, cpu_samples, spin_samples, inwait_samples;
    _Atomic unsigned wait_kinds;
    struct tp_histo *histo;
    /* TP_OPS_MAX_SHAPES slots in the record's chunk, apart from the records: most ops have no
     * shape, and their slots' pages are never touched */
    struct tp_shape_rec *shapes;
    _Atomic uint64_t shapes_dropped;
};

/* Records by id: chunks of records (track/ops/ops_table.c), none of which ever moves, and for each
 * id its record's address (tp_op_ptr, mapped reserve-only for every id: 8 bytes touched an op;
 * one load on the hot path, where the chunk directory would take a shift, a mask and a multiply
 * more). An id handed out is below tp_op_nrecs, and its address was published before it. */
#define TP_OPS_CHUNK_BITS 8
#define TP_OPS_CHUNK      (1 << TP_OPS_CHUNK_BITS)
#define TP_OPS_MAX_IDS    (1 << 20) /* TPROF_MAX_OPS's top: the directory's reach */
extern struct tp_op_rec *_Atomic tp_op_dir[TP_OPS_MAX_IDS / TP_OPS_CHUNK];
extern struct tp_op_rec *_Atomic *tp_op_ptr;
static inline struct tp_op_rec *tp_op_rec(int id)
{
    return atomic_load_explicit(&tp_op_ptr[id], memory_order_acquire);
}
extern _Atomic int tp_op_nrecs;
/* Refused lookups of names a full table gave no id, calls nested too deep, ends without a
 * begin. */
extern _Atomic uint64_t tp_ops_dropped, tp_ops_overflow, tp_ops_unpaired;

/* The table's set-up (tp_ops_init) and a forked child's empty histograms. */
void tp_ops_table_init(void);
void tp_ops_table_fork_child(void);
/* Bytes the op table holds in memory now (resident pages of its chunks, its indexes, the
 * record addresses). */
uint64_t tp_ops_resident(void);

/* What a full table lost, for the report: why it stopped, the lookups refused, the distinct
 * names refused and the first TP_OPS_LOST_NAMES of them, the ops it holds. Lock-free: a report
 * from a signal handler does not wait. */
enum tp_ops_limit { TP_OPS_GROWING, TP_OPS_MAX_OPS, TP_OPS_BUDGET, TP_OPS_NO_MEMORY };
#define TP_OPS_LOST_NAMES 8
struct tp_ops_lost {
    enum tp_ops_limit limit;
    uint64_t lookups, names;
    int names_inexact; /* names is a lower bound (more than 8,192 refused) */
    const char *const *first;
    int nfirst, ops;
};
void tp_ops_lost(struct tp_ops_lost *out);
/* The memory budget in force (TPROF_MEMORY_BUDGET, or its default for the peak RSS now). */
uint64_t tp_ops_budget(void);

/* Steps: their latency histogram (ticks), steps ended, and those of them in the warm-up. */
extern struct tp_histo *tp_step_histo;
extern _Atomic uint64_t tp_step_count, tp_step_warm;

/* The calls' figures of an op, its owner's and the other threads' (see tp_op_rec). */
#define TP_OP_SUM(r, f) (atomic_load(&(r)->f) + atomic_load(&(r)->sh_##f))
static inline uint64_t tp_op_calls(struct tp_op_rec *r)
{
    return TP_OP_SUM(r, calls);
}

/* Field by field: the padding of a key built on the caller's stack is not initialised. */
static inline int tp_shape_same(const struct tp_shape_key *a, const struct tp_shape_key *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->transa == b->transa &&
           a->transb == b->transb && a->layout == b->layout && a->side == b->side &&
           a->uplo == b->uplo && a->named == b->named && a->dtype[0] == b->dtype[0] &&
           a->dtype[1] == b->dtype[1] &&
           (!(a->named || a->dtype[0]) || !memcmp(a->more, b->more, sizeof a->more));
}

/* Stacks of nested ops for the op-time flame graph (TPROF_FOLDED; implemented in
 * track/ops/optree.c, collected into the report by ops_collect.c). A node is one path of ops from
 * the outermost: (parent node, op). */
#define TP_OPTREE_NONE (-1) /* no parent: the op is outermost */
#define TP_OPTREE_FULL                                                                             \
    (-2) /* the table was full: the call and those nested in it are counted apart */

/* 1 when TPROF_FOLDED, TPROF_HTML or TPROF_PPROF_TIME is set and the table exists. */
extern int tp_optree_on;

void tp_optree_init(void);
void tp_optree_fork_child(void);
/* The node of op id called inside node parent (TP_OPTREE_NONE at the outermost level). */
int tp_optree_child(int parent, int id);
/* A call of node ended: its inclusive and exclusive ticks, and its FLOPs. */
void tp_optree_add(int node, uint64_t total, uint64_t self, uint64_t flops);

/* A node as the report reads it: its op, the node it was called in (TP_OPTREE_NONE when
 * outermost) and its counts, in ticks. */
struct tp_optree_node {
    int parent, op;
    uint64_t calls, total, self, flops;
};
/* Slots in the table, 0 when it is off: nodes are read by slot, from 0 to slots - 1. */
uint32_t tp_optree_slots(void);
/* Read the node in slot i (< tp_optree_slots()): 1, or 0 when the slot is free. */
int tp_optree_read(uint32_t i, struct tp_optree_node *out);
/* Calls made under a full table (and those nested in them). */
uint64_t tp_optree_dropped(void);

/* Names of the functions the hooks saw, kept so that a setting naming a function nobody called
 * (a typo in TPROF_STEP or TPROF_OPS) can be told with the closest names that were called. */
/* Record name (copied with tp_alloc; a C++ parameter list is cut). Lock-free and bounded: past
 * TP_SEEN_MAX distinct names, new ones are dropped. instrumented: an instrumented function that
 * ran (its every call is seen), not a shared-library import (which may never be called). */
#define TP_SEEN_MAX 4096
void tp_seen_add(const char *name, int instrumented);

/* How many names were kept. */
size_t tp_seen_count(void);
/* 1 once an instrumented function has run: then every instrumented function's calls are seen. */
int tp_seen_instrumented(void);

/* Up to max names closest to name by edit distance (an adjacent swap counts as one edit), nearest
 * first, and only those close enough to be a misspelling of it; into out (the names are never
 * freed). Returns how many. */
size_t tp_seen_closest(const char *name, const char **out, size_t max);

/* Settings that name functions nobody called: TPROF_STEP, and the exact names (no glob) listed
 * in TPROF_OPS. Told once the run is over, with the closest names the hooks saw (track/ops/seen.c):
 * a misspelt step otherwise drops the STEPS section without a word. */
struct tp_report;

/* Add a note to r for every such setting, given r's ops and steps. final: the last report of
 * this image (a snapshot cannot know that a function will never be called); the notes then also
 * go to stderr, once per image, unless the text report is written there. */
void tp_unmatched_notes(struct tp_report *r, int final);
/* 1 when there is such a setting to check at all: TPROF_STEP, or an exact name in TPROF_OPS (the
 * default list has none). */
int tp_unmatched_possible(void);

/* Work or wait: the time the program's threads spend waiting for each other rather than working.
 *
 * Two ways in. The waiting calls a program makes (sched_yield, pthread barriers, condition
 * variables, semaphores, pthread_join, futex waits through syscall()) are interposed
 * (preload/hook/hook_wait.c) and timed exactly: their wall time goes to the innermost op open on the
 * calling thread (to the op another thread is in when none is open here, as CPU samples are) and
 * to the thread's own total. Spinning that never calls into the kernel (libgomp's barriers and
 * spin loops with OMP_WAIT_POLICY=active) is seen by the CPU-time sampler (track/out/sample.c): a
 * sample whose program counter lies in the text of an OpenMP runtime is a spin sample. The work
 * of a parallel region runs in the program's own outlined functions, never in the runtime's text,
 * so the runtime's own time is its scheduling, barriers and waiting.
 *
 * Everything the sampler calls here is async-signal-safe: atomics and fixed tables only. */
/* Kinds of hooked wait, as bits (an op's set goes to the report's wording). */
enum tp_wait_kind {
    TP_WAIT_YIELD = 1,   /* sched_yield */
    TP_WAIT_BARRIER = 2, /* pthread_barrier_wait */
    TP_WAIT_COND = 4,    /* pthread_cond_wait, pthread_cond_timedwait, pthread_cond_clockwait */
    TP_WAIT_SEM = 8,     /* sem_wait, sem_timedwait, sem_clockwait */
    TP_WAIT_JOIN = 16,   /* pthread_join */
    TP_WAIT_FUTEX = 32,  /* FUTEX_WAIT* through syscall() */
    TP_WAIT_DEVICE = 64, /* a CUDA synchronise call: the host waits for the device */
};

/* A hooked waiting call: tp_wait_enter before the real call returns its start tick (0 when
 * nothing is recorded: tprof not running, or its own call); tp_wait_leave after it charges the
 * time. The depth kept between them makes the samples taken inside the call wait samples, and a
 * wait nested in another (sem_wait's futex) counted once. */
uint64_t tp_wait_enter(void);
void tp_wait_leave(uint64_t t0, unsigned kind);

/* The class of a CPU-time sample on this thread (called from the SIGPROF handler). */
enum tp_sample_class { TP_SAMPLE_WORK, TP_SAMPLE_SPIN, TP_SAMPLE_INWAIT };
enum tp_sample_class tp_wait_classify(uintptr_t pc);
/* Count a spin or in-wait sample to this thread's figures. Async-signal-safe. */
void tp_wait_thread_sample(enum tp_sample_class c);

/* The OpenMP runtimes' text ranges, found again after each dlopen (and at start). Not from a
 * signal handler. After a dlclose, tp_wait_remap_modules starts the list afresh (a sample taken
 * while it is rewritten may be classed by a range that just went: one sample, not a crash). */
void tp_wait_map_modules(void);
void tp_wait_remap_modules(void);

/* Each of the report's threads[]: its wait_ns and wait_spin_ns (a spin sample stands for the
 * samples' period: r->samples.hz set first). */
struct tp_report;
void tp_wait_collect(struct tp_report *r);

void tp_wait_fork_child(void);

#endif
