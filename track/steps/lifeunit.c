/* The unit of a heap block's lifetime (track/steps/steps.h): which steps or op calls end one. */
#include "track/steps/steps.h"

#include <stdatomic.h>
#include <string.h>
#include <strings.h>

#include "track/heap/heap.h"
#include "track/work/work.h"

static _Atomic int mode = TP_UNIT_NONE; /* what ends a unit: none yet, or a tp_unit_kind */
static _Atomic int detected = -1;       /* the op found to be the step */
static _Atomic int ended;       /* a unit ended: a flag, not a count (no locked add per op call) */
static _Atomic int by_function; /* a ggml graph-compute function's calls are the steps */
_Atomic int tp_lifeunit_last_outer; /* track/steps/steps.h */
/* The op time the detected step's calls enclosed, kept beside outer_total for the share rule. */
static _Atomic uint64_t detected_ticks;
TP_TLS int tp_lifeunit_nested;

static void unit_end(int kind)
{
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m != kind)
        atomic_store_explicit(&mode, kind, memory_order_relaxed);
    if (!atomic_load_explicit(&ended, memory_order_relaxed))
        atomic_store_explicit(&ended, 1, memory_order_relaxed);
    tp_heap_unit_end();
}

/* With a step function or markers, op calls end nothing. */
static int steps_rule(void)
{
    return tp_cfg.step || atomic_load_explicit(&by_function, memory_order_relaxed) ||
           atomic_load_explicit(&mode, memory_order_relaxed) == TP_UNIT_MARK;
}

void tp_lifeunit_step_function(void)
{
    atomic_store(&by_function, 1);
}

void tp_lifeunit_step_end(void)
{
    unit_end(TP_UNIT_STEP);
}

void tp_lifeunit_mark(void)
{
    /* Every marker ends a unit, the first too: a marker at the end of each iteration ends the
     * first, one at the start ends what came before the loop (its blocks outlive it or not,
     * either way). Before the first marker, op calls ended units: nothing says markers will
     * come. */
    if (!tp_cfg.step)
        unit_end(TP_UNIT_MARK);
}

/* The ops whose outermost calls enclosed another op: the candidates for the step, with the op
 * time their calls enclosed. A few slots: the step is among the ops that enclose the most; one
 * that encloses less than every slot's is not it. */
#define NCAND 8
struct cand {
    int id;          /* -1: free */
    int never;       /* an allocator or free function: never the step */
    int in_row;      /* two outermost calls in a row, nothing between */
    int interleaved; /* another op enclosing one ran between two of its calls: a layer */
    uint32_t calls;
    uint64_t enclosed;
    uint64_t mark; /* enclosing_calls after its last call */
};
static struct cand cands[NCAND] = {[0 ... NCAND - 1] = {.id = -1}};
/* A step encloses at least 1/STEP_SHARE_MIN of the time in outermost op calls (10%): the step is
 * the loop the program's work runs in, and a repeating op enclosing less (a configuration getter
 * calling another getter, darknet's option_find_float) is a helper, whose calls would end units
 * that say nothing of the work's memory: nearly everything would read persistent. */
#define STEP_SHARE_MIN 10
static atomic_flag cand_lock = ATOMIC_FLAG_INIT;
static _Atomic uint64_t outer_total; /* ticks of every outermost op call */
/* Outermost op calls that enclosed another op, allocators' and free functions' left out: under
 * cand_lock. */
static uint64_t enclosing_calls;

int tp_lifeunit_never_step(const char *name)
{
    if (!name)
        return 0;
    /* a ggml graph node runs outermost on each of ggml's worker threads: the graph's compute,
     * which calls it, is the step */
    if (tp_ggml_node_op(name))
        return 1;
    for (const char *p = name; *p; p++)
        if (!strncasecmp(p, "free", 4) || !strncasecmp(p, "alloc", 5))
            return 1;
    return 0;
}

static struct cand *cand_of(int id, int never)
{
    struct cand *least = &cands[0];
    for (int i = 0; i < NCAND; i++) {
        if (cands[i].id == id)
            return &cands[i];
        if (cands[i].id < 0 || (least->id >= 0 && cands[i].enclosed < least->enclosed))
            least = &cands[i];
    }
    if (least->id >= 0 && least->id == atomic_load_explicit(&detected, memory_order_relaxed))
        return NULL; /* the step keeps its slot */
    *least = (struct cand){.id = id, .never = never};
    return least;
}

/* The step: of the candidates that are no allocator or free function, the one enclosing the
 * most op time, among those between two calls of which no other op ran that enclosed one (ops
 * that enclose none, such as setting a graph's inputs, and freeing its buffers may: a graph's
 * compute is the step; other layers run between a layer's calls, and it is not). A step found
 * so that stops being one gives way to none: outermost op calls end units again. Under
 * cand_lock. */
static int eligible(const struct cand *c)
{
    return c->id >= 0 && !c->never && !c->interleaved && (c->in_row || c->calls >= 2);
}

static int enough_share(uint64_t enclosed)
{
    uint64_t all = atomic_load_explicit(&outer_total, memory_order_relaxed);
    return enclosed > 0 && enclosed >= all / STEP_SHARE_MIN;
}

static void choose(void)
{
    const struct cand *best = NULL;
    for (int i = 0; i < NCAND; i++) {
        const struct cand *c = &cands[i];
        if (!eligible(c) || !enough_share(c->enclosed))
            continue;
        if (!best || c->enclosed > best->enclosed)
            best = c;
    }
    int d = atomic_load_explicit(&detected, memory_order_relaxed);
    if (best && best->id == d)
        return;
    if (!best) {
        if (d >= 0) {
            atomic_store(&detected, -1);
            atomic_store(&mode, TP_UNIT_OP_CALL);
        }
        return;
    }
    atomic_store(&detected, best->id);
    atomic_store_explicit(&detected_ticks, best->enclosed, memory_order_relaxed);
    atomic_store(&mode, TP_UNIT_DETECTED);
}

void tp_lifeunit_outer_begin(int id)
{
    tp_lifeunit_nested = 0;
    if (steps_rule() || id < 0 ||
        atomic_load_explicit(&tp_lifeunit_last_outer, memory_order_relaxed) != id + 1)
        return;
    /* Two outermost calls of one op in a row, the first enclosing another op: nothing else runs
     * between its calls. */
    while (atomic_flag_test_and_set_explicit(&cand_lock, memory_order_acquire))
        ;
    for (int i = 0; i < NCAND; i++)
        if (cands[i].id == id && !cands[i].in_row) {
            cands[i].in_row = 1;
            choose();
        }
    atomic_flag_clear_explicit(&cand_lock, memory_order_release);
}

void tp_lifeunit_outer_end(int id, uint64_t ticks, int never)
{
    if (steps_rule())
        return;
    int last = tp_lifeunit_nested ? id + 1 : -(id + 1);
    atomic_fetch_add_explicit(&outer_total, ticks, memory_order_relaxed);
    if (atomic_load_explicit(&tp_lifeunit_last_outer, memory_order_relaxed) != last)
        atomic_store_explicit(&tp_lifeunit_last_outer, last, memory_order_relaxed);
    if (tp_lifeunit_nested && id >= 0) {
        while (atomic_flag_test_and_set_explicit(&cand_lock, memory_order_acquire))
            ;
        struct cand *c = cand_of(id, never);
        if (c) {
            if (c->calls && enclosing_calls != c->mark)
                c->interleaved = 1;
            c->calls++;
            c->enclosed += ticks;
            if (id == atomic_load_explicit(&detected, memory_order_relaxed))
                atomic_store_explicit(&detected_ticks, c->enclosed, memory_order_relaxed);
        }
        if (!never)
            enclosing_calls++;
        if (c)
            c->mark = enclosing_calls;
        choose();
        atomic_flag_clear_explicit(&cand_lock, memory_order_release);
    }
    int d = atomic_load_explicit(&detected, memory_order_relaxed);
    if (d >= 0 && !enough_share(atomic_load_explicit(&detected_ticks, memory_order_relaxed))) {
        /* The op time outside the step grew past the rule: outermost op calls end units again
         * until a candidate meets it (choose() at the next call that encloses an op). */
        if (atomic_compare_exchange_strong(&detected, &d, -1))
            atomic_store(&mode, TP_UNIT_OP_CALL);
        d = -1;
    }
    if (d < 0)
        unit_end(TP_UNIT_OP_CALL);
    else if (id == d)
        unit_end(TP_UNIT_DETECTED);
}

double tp_lifeunit_detected_share(void)
{
    uint64_t all = atomic_load(&outer_total), e = 0;
    int d = atomic_load(&detected);
    while (atomic_flag_test_and_set_explicit(&cand_lock, memory_order_acquire))
        ;
    for (int i = 0; i < NCAND; i++)
        if (d >= 0 && cands[i].id == d)
            e = cands[i].enclosed;
    atomic_flag_clear_explicit(&cand_lock, memory_order_release);
    return all ? (double)e / (double)all : 0;
}

int tp_lifeunit_turned_down(double *share)
{
    uint64_t all = atomic_load(&outer_total), e = 0;
    int id = -1;
    while (atomic_flag_test_and_set_explicit(&cand_lock, memory_order_acquire))
        ;
    for (int i = 0; i < NCAND; i++)
        if (eligible(&cands[i]) && !enough_share(cands[i].enclosed) &&
            (id < 0 || cands[i].enclosed > e)) {
            id = cands[i].id;
            e = cands[i].enclosed;
        }
    atomic_flag_clear_explicit(&cand_lock, memory_order_release);
    *share = all ? (double)e / (double)all : 0;
    return id;
}

void tp_lifeunit_demoted(int id)
{
    int d = id;
    while (atomic_flag_test_and_set_explicit(&cand_lock, memory_order_acquire))
        ;
    for (int i = 0; i < NCAND; i++)
        if (cands[i].id == id)
            cands[i].never = 1; /* too short to time: not the step either */
    atomic_flag_clear_explicit(&cand_lock, memory_order_release);
    if (id < 0 || !atomic_compare_exchange_strong(&detected, &d, -1))
        return;
    /* Outermost op calls end units again until another op is seen to be the step. */
    atomic_store(&mode, TP_UNIT_OP_CALL);
    atomic_store_explicit(&detected_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&tp_lifeunit_last_outer, 0, memory_order_relaxed);
}

enum tp_unit_kind tp_lifeunit_kind(int *op)
{
    int m = atomic_load(&mode);
    *op = m == TP_UNIT_DETECTED ? atomic_load(&detected) : -1;
    if (atomic_load(&ended) == 0)
        return TP_UNIT_NONE;
    return (enum tp_unit_kind)m;
}

void tp_lifeunit_fork_child(void)
{
    atomic_store(&ended, 0);
}
