/* Kernels whose TPROF_WORK sizes -O3 rewrites (tests/work_o3.sh): kernels and their callers in
 * one file, so that the compiler inlines them into their callers and keeps a size only as a
 * computation: matmul's k as "r13 * 5", axpy's n as "the int m in a stack slot, sign-extended,
 * times 6", gemv's rows in a stack slot of the function it was inlined into. Built at -O2 and
 * -O3 with -g and -finstrument-functions. The sizes come from argc (1), so that they are not
 * constants to the compiler. */
#include <stddef.h>
#include <stdio.h>

/* y = W x, W rows x cols. */
void gemv_f32(float *y, const float *W, const float *x, int rows, size_t cols)
{
    for (int i = 0; i < rows; i++) {
        float s = 0;
        for (size_t j = 0; j < cols; j++)
            s += W[(size_t)i * cols + j] * x[j];
        y[i] = s;
    }
}

/* y += a x over n elements, n a long. */
void axpy_f32(long n, float a, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* c = a b, a m x k, b k x n. */
void matmul_f32(float *c, const float *a, const float *b, int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int p = 0; p < k; p++)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
}

/* n is read by nothing after the enter hook: at the hook only its value at entry is described,
 * and the register that brought it (%rsi) carries the hook's own argument by then. Its caller's
 * call site says what it passed: 16 * scale, scale in a callee-saved register. A second call
 * passes the result of a call, which no call-site value describes: that call has no work. */
__attribute__((noinline)) void zero_f32(float *y, int n)
{
    y[0] = 0;
}

/* The same, but its caller passes the result of a call, which no call-site value describes. */
__attribute__((noinline)) void clear_f32(float *y, int n)
{
    y[0] = 0;
}

/* Inlined into fill_host, whose hooks it calls in fill_host's frame: there its n is fill_host's
 * value at entry, which fill_host's caller's call site gives. */
static inline void fill_f32(float *y, int n)
{
    y[0] = 1;
}

__attribute__((noinline)) void fill_host(float *y, int n)
{
    fill_f32(y, n);
}

__attribute__((noinline)) int pick(int argc)
{
    return 16 * argc;
}

static float buf_a[1 << 16], buf_b[1 << 16], buf_c[1 << 16];

static void dense(int rows, size_t cols, int reps)
{
    for (int r = 0; r < reps; r++)
        gemv_f32(buf_c, buf_a, buf_b, rows, cols);
}

static void layer(int m, int n, int k)
{
    matmul_f32(buf_c, buf_a, buf_b, m, n, k);
    axpy_f32((long)m * n, 0.5f, buf_c, buf_a);
}

int main(int argc, char **argv)
{
    (void)argv;
    int scale = argc;
    for (int i = 0; i < 1 << 16; i++)
        buf_a[i] = buf_b[i] = (float)(i % 7);
    zero_f32(buf_c, 16 * scale);
    zero_f32(buf_b + 1000, pick(argc));
    fill_host(buf_b + 2000, 8 * scale);
    dense(30 * scale, 20, 3);
    dense(8 * scale, 100, 2);
    for (int i = 0; i < 4; i++)
        layer(4 * scale, 6, 5 * scale);
    clear_f32(buf_b, pick(argc));
    printf("%g\n", buf_c[1] + buf_a[2] + buf_b[0]);
    return 0;
}
