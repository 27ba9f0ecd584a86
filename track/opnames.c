/* Ops by name (see opnames.h). */
#include "track/opnames.h"

#include <ctype.h>
#include <string.h>

#include "common/config.h"
#include "track/runtime.h"

const char *tp_names_kind(const char *name)
{
    /* First match wins: forward_convolutional_layer is a conv, gemm_nn a matmul. */
    static const struct {
        const char *word, *kind;
    } kinds[] = {{"gemm", "matmul"},         {"matmul", "matmul"},       {"gemv", "gemv"},
                 {"im2col", "conv"},         {"col2im", "conv"},         {"conv", "conv"},
                 {"attention", "attention"}, {"softmax", "softmax"},     {"norm", "norm"},
                 {"pool", "pool"},           {"relu", "activation"},     {"gelu", "activation"},
                 {"sigmoid", "activation"},  {"tanh", "activation"},     {"activat", "activation"},
                 {"dropout", "dropout"},     {"embedding", "embedding"}, {"update", "optimizer"},
                 {"backward", "backward"},   {"forward", "forward"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcasestr(name, kinds[i].word))
            return kinds[i].kind;
    return "op";
}

int tp_names_is_step(const char *name)
{
    const char *s = tp_cfg.step;
    if (!s || !*s || !name)
        return 0;
    size_t n = strlen(s);
    /* "train_step" names the C function and the C++ "train_step(int)" alike */
    return strncmp(name, s, n) == 0 && (name[n] == 0 || name[n] == '(');
}

int tp_names_is_op(const char *name)
{
    return tp_ops_match(tp_cfg.ops, name);
}

int tp_names_default(void)
{
    return tp_cfg.ops && !strcmp(tp_cfg.ops, TP_DEFAULT_OPS);
}

int tp_names_default_export(const char *name)
{
    return tp_ops_match("*," TP_DEFAULT_EXCLUDE, name);
}

int tp_names_exact(const char *name)
{
    const char *p = tp_cfg.ops;
    size_t n = strlen(name);
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* entries are trimmed as tp_ops_match trims them */
        while (len && isspace((unsigned char)*p))
            p++, len--;
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* ---- work ---- */

static uint64_t nn(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

struct tp_work tp_work_gemm(int64_t m, int64_t n, int64_t k, int beta_nz, unsigned elem, int cplx)
{
    uint64_t M = nn(m), N = nn(n), K = nn(k);
    struct tp_work w = {(cplx ? 8 : 2) * M * N * K,
                        elem * (M * K + K * N + M * N + (beta_nz ? M * N : 0))};
    return w;
}

struct tp_work tp_work_gemv(int64_t m, int64_t n, int trans, int beta_nz, unsigned elem, int cplx)
{
    uint64_t M = nn(m), N = nn(n);
    uint64_t lx = trans ? M : N, ly = trans ? N : M;
    struct tp_work w = {(cplx ? 8 : 2) * M * N, elem * (M * N + lx + ly + (beta_nz ? ly : 0))};
    return w;
}

struct tp_work tp_work_symm(int right, int64_t m, int64_t n, int beta_nz, unsigned elem)
{
    uint64_t M = nn(m), N = nn(n), KA = right ? N : M;
    struct tp_work w = {2 * KA * M * N,
                        elem * (KA * (KA + 1) / 2 + 2 * M * N + (beta_nz ? M * N : 0))};
    return w;
}

struct tp_work tp_work_syrk(int64_t n, int64_t k, int beta_nz, unsigned elem)
{
    uint64_t N = nn(n), K = nn(k), tri = N * (N + 1) / 2;
    struct tp_work w = {K * N * (N + 1), elem * (N * K + tri + (beta_nz ? tri : 0))};
    return w;
}

struct tp_work tp_work_tri(int right, int64_t m, int64_t n, unsigned elem)
{
    uint64_t M = nn(m), N = nn(n), KA = right ? N : M;
    struct tp_work w = {KA * M * N, elem * (KA * (KA + 1) / 2 + 2 * M * N)};
    return w;
}

struct tp_work tp_work_vec(int64_t n, unsigned elem, unsigned streams)
{
    struct tp_work w = {2 * nn(n), elem * streams * nn(n)};
    return w;
}

/* ---- known signatures ---- */

/* Where a gemm-like signature keeps its arguments: integer argument registers for the
 * transposes (-1: none, 'N'), m, n, k, and the float register of beta (-1: none, as if not 0). */
struct known_sig {
    int ta, tb, m, n, k, beta;
};

/* darknet: gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
 * int ldb, float BETA, float *C, int ldc), C = ALPHA*op(A)*op(B) + BETA*C;
 * gemm_nn(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb, float *C,
 * int ldc), C += ALPHA*A*B. Row-major floats: the work of sgemm. */
static const struct known_sig known_sigs[] = {
    {0, 0, 0, 0, 0, 0},    /* 0: none */
    {0, 1, 2, 3, 4, 1},    /* 1: darknet's gemm */
    {-1, -1, 0, 1, 2, -1}, /* 2: darknet's gemm_nn and co */
};

/* By exported name. tpop_gemm and tpop_gemm_nn are the test library's stand-ins for darknet's
 * (tests/victims/libtpop.c). */
static const struct {
    const char *name;
    int sig;
} known_names[] = {
    {"gemm", 1},    {"gemm_cpu", 1}, {"tpop_gemm", 1}, {"gemm_nn", 2},
    {"gemm_nt", 2}, {"gemm_tn", 2},  {"gemm_tt", 2},   {"tpop_gemm_nn", 2},
};

int tp_names_known(const char *name)
{
    for (size_t i = 0; i < sizeof known_names / sizeof known_names[0]; i++)
        if (!strcmp(known_names[i].name, name))
            return known_names[i].sig;
    return 0;
}

static int64_t arg_int(uint64_t reg)
{
    return (int64_t)(int32_t)(uint32_t)reg; /* an int argument: the low 32 bits, sign-extended */
}

void tp_names_known_work(int sig, const uint64_t ints[6], const float floats[8], struct tp_work *w,
                         struct tp_shape_key *shape)
{
    const struct known_sig *k = &known_sigs[sig];
    int64_t m = arg_int(ints[k->m]), n = arg_int(ints[k->n]), kk = arg_int(ints[k->k]);
    int beta_nz = k->beta < 0 || floats[k->beta] != 0.0f;
    *w = tp_work_gemm(m, n, kk, beta_nz, sizeof(float), 0);
    memset(shape, 0, sizeof *shape); /* ops.c compares keys bytewise */
    shape->m = m;
    shape->n = n;
    shape->k = kk;
    shape->transa = k->ta < 0 ? 'N' : arg_int(ints[k->ta]) ? 'T' : 'N';
    shape->transb = k->tb < 0 ? 'N' : arg_int(ints[k->tb]) ? 'T' : 'N';
    shape->layout = 'R';
}
