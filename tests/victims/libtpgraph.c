/* A tensor library in miniature, for the step's detection (tests/step_detect.sh): its graph
 * compute encloses its matmul, and its buffer free encloses its pool's release and is called as
 * often, twice in a row at the end of each step; its configuration getter encloses its option
 * lookup. Its exports are ops by default. */
#include <stdlib.h>
#include <string.h>

#define N 48

struct tl_buf {
    float *data;
};

void tl_pool_release(float *p)
{
    free(p);
}

void tl_buffer_free(struct tl_buf *b)
{
    tl_pool_release(b->data);
    b->data = NULL;
}

struct tl_buf *tl_buffer_new(struct tl_buf *b)
{
    b->data = calloc(N * N, sizeof *b->data);
    return b;
}

void tl_tensor_set(struct tl_buf *b, float v)
{
    for (int i = 0; b->data && i < N * N; i++)
        b->data[i] = v + (float)(i % 3);
}

void tl_matmul(float *c, const float *a, const float *b)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < N; k++)
                s += a[i * N + k] * b[k * N + j];
            c[i * N + j] = s;
        }
}

void tl_graph_compute(struct tl_buf *out, const struct tl_buf *x)
{
    for (int r = 0; r < 4; r++)
        tl_matmul(out->data, x->data, x->data);
}

const char *tl_option_find(const char *key)
{
    return strcmp(key, "lr") == 0 ? "0.5" : NULL;
}

float tl_option_find_float(const char *key, float def)
{
    const char *v = tl_option_find(key);
    return v ? strtof(v, NULL) : def;
}
