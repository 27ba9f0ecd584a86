/* Built with -finstrument-functions: the lifetimes of a trainer's heap (tests/heap_lifetime.sh).
 *
 *   v_life train: weights before the loop; gradients and optimizer state in step 0, live all run;
 *                 activations allocated in forward_layers and freed in update_params; a
 *                 workspace allocated and freed in backward_layers, where every step peaks.
 *   v_life mark:  the same, calling tprof_step() after each step.
 *   v_life parse: a getter that the default op list matches (*norm*) called while parsing, with
 *                 parse-time buffers allocated between its calls and live all run; then a forward
 *                 pass whose activations are freed within it.
 *   v_life getter: option_find_float (calling option_find) 200 times in a row while parsing,
 *                 4 parse buffers allocated among its calls, live all run; then network_step
 *                 (calling conv_inner, 50 ms each) 3 times, each allocating and freeing its
 *                 activations.
 * Steps after the first reach the same live bytes without passing them, so the peak is step 0's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tprof.h>

enum {
    WEIGHTS = 1 << 20,
    GRADS = 1 << 19,
    OPT = 3 << 18,
    ACT1 = 1 << 17,
    ACT2 = 3 << 16,
    WORK = 1 << 16,
    PARSE = 200000, /* each of three */
    FWD = 300000,
};

static char *weights, *grads, *opt, *act1, *act2;
static volatile char sink;

static char *take(size_t n)
{
    char *p = malloc(n);
    if (!p)
        exit(1);
    memset(p, 1, n);
    return p;
}

static void forward_layers(void)
{
    act1 = take(ACT1);
    act2 = take(ACT2);
}

static void backward_layers(void)
{
    char *ws = take(WORK);
    sink = ws[WORK - 1] + act1[0] + act2[0];
    free(ws);
}

static void update_params(void)
{
    sink = grads[0] + opt[0] + weights[0];
    free(act1);
    free(act2);
}

static void train_step(int i)
{
    if (i == 0) {
        grads = take(GRADS);
        opt = take(OPT);
    }
    forward_layers();
    backward_layers();
    update_params();
}

static int get_batchnorm_size(int i)
{
    return PARSE + 0 * i;
}

static void network_forward(void)
{
    char *a = take(FWD);
    sink = a[FWD - 1];
    free(a);
}

static int option_find(int i)
{
    return i + 1;
}

static float option_find_float(int i)
{
    return (float)option_find(i);
}

static void conv_inner(char *a)
{
    a[0] = 1;
}

static void network_step(void)
{
    struct timespec t = {0, 50000000}; /* longer than any getter call, by far */
    while (nanosleep(&t, &t) != 0) {
    }
    char *a = take(FWD);
    conv_inner(a);
    sink = a[FWD - 1];
    free(a);
}

static int getter(void)
{
    char *cfg[4];
    float sum = 0;
    for (int i = 0; i < 200; i++) {
        sum += option_find_float(i);
        if (i % 50 == 0)
            cfg[i / 50] = take(PARSE);
    }
    for (int i = 0; i < 3; i++)
        network_step();
    printf("%d %.0f\n", cfg[0][0] + cfg[3][PARSE - 1], sum);
    for (int i = 0; i < 4; i++)
        free(cfg[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "getter"))
        return getter();
    if (argc > 1 && !strcmp(argv[1], "parse")) {
        char *cfg[3];
        for (int i = 0; i < 3; i++)
            cfg[i] = take((size_t)get_batchnorm_size(i));
        for (int i = 0; i < 3; i++)
            network_forward();
        printf("%d\n", cfg[0][0] + cfg[2][PARSE - 1]);
        for (int i = 0; i < 3; i++)
            free(cfg[i]);
        return 0;
    }
    int mark = argc > 1 && !strcmp(argv[1], "mark");
    weights = take(WEIGHTS);
    for (int i = 0; i < 4; i++) {
        train_step(i);
        if (mark)
            tprof_step();
    }
    printf("%d\n", sink);
    free(grads);
    free(opt);
    free(weights);
    return 0;
}
