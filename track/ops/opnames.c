/* Ops by name (see track/ops/ops.h). */
#include "track/ops/ops.h"

#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "common/config.h"
#include "common/workspec.h"
#include "track/work/work.h"
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
    /* The name lower-cased once, then plain searches: strcasestr folds both strings at every
     * position, twenty times a name. A longer name is cut (a kind's word is near its start). */
    char low[256];
    size_t n = 0;
    for (; name[n] && n < sizeof low - 1; n++)
        low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr(low, kinds[i].word))
            return kinds[i].kind;
    return "op";
}

int tp_names_is_step(const char *name)
{
    const char *s = tp_cfg.step;
    if (!name)
        return 0;
    if (!s || !*s) /* nothing named: a ggml graph's evaluation is the step */
        return tp_ggml_step_function(name);
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

/* ---- work from arguments ---- */

/* Exports whose work tprof knows, as TPROF_WORK entries with their prototypes (no debug
 * information needed): darknet's gemm(TA, TB, M, N, K, ALPHA, A, lda, B, ldb, BETA, C, ldc),
 * C = ALPHA*op(A)*op(B) + BETA*C, and its inner loops gemm_nn and co (C += ALPHA*A*B): row-major
 * floats, the work of sgemm, C read too when BETA is not 0. A TPROF_WORK entry of the same name
 * wins. The same entries serve a -finstrument-functions build of darknet (with -g): there the parameters
 * are found by the names below in its DWARF (track/work/argloc.c), which are darknet's own. */
#define GEMM_PROTO                                                                                 \
    "(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb, "    \
    "float BETA, float *C, int ldc): flops=2*M*N*K bytes=4*(M*K+K*N+M*N+nz(BETA)*M*N)\n"
#define GEMM_NN_PROTO                                                                              \
    "(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb, float *C, "          \
    "int ldc): flops=2*M*N*K bytes=4*(M*K+K*N+2*M*N)\n"
/* darknet's im2col_cpu(data_im, channels, height, width, ksize, stride, pad, data_col) copies
 * the image (channels x height x width floats) into a matrix of channels*ksize*ksize rows by
 * out_h*out_w columns, out_h = (height + 2*pad - ksize)/stride + 1 (out_w alike): no FLOPs, its
 * bytes are the image read once and the matrix written once, so its bound is memory. */
#define IM2COL_PROTO                                                                               \
    "(float *data_im, int channels, int height, int width, int ksize, int stride, int pad, "       \
    "float *data_col): flops=0 bytes=4*(channels*height*width+channels*ksize*ksize*"               \
    "((height+2*pad-ksize)/stride+1)*((width+2*pad-ksize)/stride+1))\n"
static const char builtin_text[] =
    "gemm" GEMM_PROTO "gemm_cpu" GEMM_PROTO "gemm_nn" GEMM_NN_PROTO "gemm_nt" GEMM_NN_PROTO
    "gemm_tn" GEMM_NN_PROTO "gemm_tt" GEMM_NN_PROTO "im2col_cpu" IM2COL_PROTO;

static struct tp_work_set *builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void parse_builtin(void)
{
    char why[200];
    struct tp_own o = tp_own_begin(); /* tprof's own block, not the program's heap */
    if (tp_work_parse(&builtin, builtin_text, why, sizeof why) < 0)
        tp_warn("built-in work entries: %s", why); /* a bug of tprof's own: said, not hidden */
    tp_own_end(o);
}

static const struct tp_work_fn *work_named(const char *name)
{
    const struct tp_work_fn *w = tp_work_find(tp_cfg.work, name);
    if (w)
        return w;
    pthread_once(&builtin_once, parse_builtin);
    return tp_work_find(builtin, name);
}

const struct tp_work_fn *tp_names_work(const char *name)
{
    const struct tp_work_fn *w = work_named(name);
    const char *paren = strchr(name, '(');
    char plain[TP_WORK_NAME];
    /* a demangled C++ name, "ns::conv2d(int, int)", is named by its entry without the list */
    if (!w && paren && (size_t)(paren - name) < sizeof plain) {
        memcpy(plain, name, (size_t)(paren - name));
        plain[paren - name] = 0;
        w = work_named(plain);
    }
    return w;
}
