/* Ops in programs built with -finstrument-functions (DESIGN §3).
 *
 * glibc exports no-op __cyg_profile_func_enter/exit; ours take precedence when preloaded. Every
 * instrumented function calls both, so the common case, a function that is not an op, must cost
 * next to nothing: the decision (op, step, or neither) is made once per function address and
 * cached, process-wide in a lock-free table and per thread in a small direct-mapped cache that
 * answers most calls with one compare. Names come from the symbol table, so static functions
 * count; ops are the names matching TPROF_OPS, the step function is TPROF_STEP. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "ops.h"
#include "symtab.h"

/* A decision: NOT_OP, or the op id + 1 in the low bits, plus IS_STEP. */
#define NOT_OP 0
#define IS_STEP (1u << 30)
#define ID_MASK (IS_STEP - 1)

#define GLOBAL_BITS 16
#define LOCAL_SLOTS 512

struct entry {
    _Atomic uintptr_t fn;
    _Atomic uint32_t decision;
};

static struct entry *global; /* mmap'ed: no malloc from the hook */
static _Atomic int global_ready;
static _Atomic uint64_t global_full;

struct local {
    uintptr_t fn;
    uint32_t decision;
};
static TP_TLS struct local local_cache[LOCAL_SLOTS];

static const char *kind_of(const char *name)
{
    static const struct {
        const char *word, *kind;
    } kinds[] = {{"gemm", "matmul"},    {"matmul", "matmul"}, {"gemv", "gemv"},
                 {"im2col", "conv"},    {"col2im", "conv"},   {"conv", "conv"},
                 {"attention", "attention"}, {"softmax", "softmax"}, {"norm", "norm"},
                 {"pool", "pool"},      {"relu", "act"}, {"gelu", "act"},
                 {"sigmoid", "act"}, {"dropout", "dropout"}, {"embedding", "embedding"},
                 {"update", "optimizer"}, {"backward", "backward"}, {"forward", "forward"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcasestr(name, kinds[i].word))
            return kinds[i].kind;
    return "op";
}

static uint32_t decide_slow(uintptr_t fn)
{
    char name[256];
    if (tp_symtab_name(fn, name, sizeof name) < 0)
        return NOT_OP;
    uint32_t d = NOT_OP;
    if (tp_cfg.step && !strcmp(name, tp_cfg.step))
        d |= IS_STEP;
    if (tp_ops_match(tp_cfg.ops, name)) {
        int id = tp_op_intern(name, kind_of(name), TP_SRC_INSTR);
        if (id >= 0)
            d |= (uint32_t)id + 1;
    }
    return d;
}

static uint32_t decide(uintptr_t fn)
{
    struct local *l = &local_cache[(fn >> 4) & (LOCAL_SLOTS - 1)];
    if (tp_likely(l->fn == fn))
        return l->decision;
    uint32_t d = NOT_OP;
    int found = 0;
    if (atomic_load_explicit(&global_ready, memory_order_acquire)) {
        uint64_t mask = (1ull << GLOBAL_BITS) - 1, h = ((fn >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - GLOBAL_BITS);
        for (uint64_t i = 0; i <= mask; i++) {
            struct entry *e = &global[(h + i) & mask];
            uintptr_t k = atomic_load_explicit(&e->fn, memory_order_acquire);
            if (k == fn) {
                /* the decision is stored before the key is published */
                d = atomic_load_explicit(&e->decision, memory_order_relaxed);
                found = 1;
                break;
            }
            if (k == 0) {
                d = decide_slow(fn);
                /* Claim the slot; a racing thread that claims it first for another function
                 * only costs us caching here: the decision is still returned. */
                uintptr_t expect = 0;
                atomic_store_explicit(&e->decision, d, memory_order_relaxed);
                atomic_compare_exchange_strong(&e->fn, &expect, fn);
                found = 1;
                break;
            }
        }
        if (!found)
            atomic_fetch_add(&global_full, 1);
    }
    if (!found)
        d = decide_slow(fn);
    l->fn = fn;
    l->decision = d;
    return d;
}

TP_EXPORT TP_NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    if (tp_unlikely(!tp_running()) || tp_guard)
        return;
    uint32_t d = decide((uintptr_t)fn);
    if (tp_likely(d == NOT_OP))
        return;
    int e = errno;
    if (d & IS_STEP)
        tp_step_begin();
    if (d & ID_MASK)
        tp_op_begin((int)(d & ID_MASK) - 1, (uintptr_t)fn, (uintptr_t)__builtin_frame_address(0));
    errno = e;
}

TP_EXPORT TP_NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (tp_unlikely(!tp_running()) || tp_guard)
        return;
    uint32_t d = decide((uintptr_t)fn);
    if (tp_likely(d == NOT_OP))
        return;
    int e = errno;
    if (d & ID_MASK)
        tp_op_end((int)(d & ID_MASK) - 1, (uintptr_t)fn, (uintptr_t)__builtin_frame_address(0), 0,
                  0, NULL);
    if (d & IS_STEP)
        tp_step_end();
    errno = e;
}

void tp_cyg_init(void)
{
    void *m = mmap(NULL, sizeof(struct entry) << GLOBAL_BITS, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
        global = m;
        atomic_store_explicit(&global_ready, 1, memory_order_release);
    }
}
