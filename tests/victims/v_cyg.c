/* Built with -finstrument-functions: static op functions found by name, recursion, nesting,
 * longjmp out of nested ops, and a step function. Expected figures in tests/cyg_ops.sh. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;
static jmp_buf env;

static void tiny_helper(int i) { sink += i; } /* not an op: only costs a lookup */

static void small_matmul(int n)
{
    for (int i = 0; i < n * 100; i++)
        tiny_helper(i);
}

static void conv_layer(int n)
{
    small_matmul(n); /* nested op: conv_layer's self time excludes it */
    for (int i = 0; i < 1000; i++)
        sink += i;
}

static int fib_norm(int n) { return n < 2 ? n : fib_norm(n - 1) + fib_norm(n - 2); }

static void deep_softmax(int depth)
{
    if (depth == 0)
        longjmp(env, 1); /* skips the exits of every deep_softmax frame */
    deep_softmax(depth - 1);
}

static void train_step(int i)
{
    conv_layer(3);
    small_matmul(2);
    if (i % 5 == 0 && setjmp(env) == 0)
        deep_softmax(4);
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        train_step(i);
    printf("fib %d\n", fib_norm(15));
    for (int i = 0; i < 7; i++)
        small_matmul(1); /* still exact after the longjmps */
    return 0;
}
