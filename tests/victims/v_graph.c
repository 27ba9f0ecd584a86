/* A model's loop over libtpgraph.so (tests/step_detect.sh): set the input, compute the graph, free
 * both buffers. The step is the graph's compute, not the buffer free called as often.
 *   v_graph getter: read two options (a getter enclosing a lookup, twice in a row), then 200
 *   matmuls called one by one: the getter repeats and encloses an op, but under 1% of the op
 *   time, and there is no step. */
#include <stdio.h>
#include <string.h>

struct tl_buf {
    float *data;
};
struct tl_buf *tl_buffer_new(struct tl_buf *b);
void tl_buffer_free(struct tl_buf *b);
void tl_tensor_set(struct tl_buf *b, float v);
void tl_graph_compute(struct tl_buf *out, const struct tl_buf *x);
void tl_matmul(float *c, const float *a, const float *b);
float tl_option_find_float(const char *key, float def);

static int getter(void)
{
    float lr = tl_option_find_float("lr", 0) + tl_option_find_float("momentum", 0.25f);
    struct tl_buf x, out;
    tl_buffer_new(&x);
    tl_buffer_new(&out);
    tl_tensor_set(&x, lr);
    for (int i = 0; i < 200; i++)
        tl_matmul(out.data, x.data, x.data);
    printf("done %g\n", out.data && out.data[1] > 0 ? 1.0 : 0.0);
    tl_buffer_free(&x);
    tl_buffer_free(&out);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "getter"))
        return getter();
    double sum = 0;
    for (int step = 0; step < 20; step++) {
        struct tl_buf x, out;
        tl_buffer_new(&x);
        tl_buffer_new(&out);
        tl_tensor_set(&x, (float)step);
        tl_graph_compute(&out, &x);
        sum += out.data ? out.data[1] : 0;
        tl_buffer_free(&x);
        tl_buffer_free(&out);
    }
    printf("done %g\n", sum > 0 ? 1.0 : 0.0);
    return 0;
}
