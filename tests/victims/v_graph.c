/* A model's loop over libtpgraph.so (tests/step_detect.sh): set the input, compute the graph, free
 * both buffers. The step is the graph's compute, not the buffer free called as often. */
#include <stdio.h>

struct tl_buf {
    float *data;
};
struct tl_buf *tl_buffer_new(struct tl_buf *b);
void tl_buffer_free(struct tl_buf *b);
void tl_tensor_set(struct tl_buf *b, float v);
void tl_graph_compute(struct tl_buf *out, const struct tl_buf *x);

int main(void)
{
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
