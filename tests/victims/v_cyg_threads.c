/* Built with -finstrument-functions: 4 threads make their first calls at the same moment (the
 * per-address decisions are taken concurrently), then run ops and non-ops; and the same through
 * the PLT into libtpop.so. Exact totals in tests/cyg_threads.sh. */
#include <pthread.h>
#include <stdio.h>

void tpop_gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
               int ldb, float BETA, float *C, int ldc);

static __thread volatile long sink; /* per thread: the output stays exact */
static pthread_barrier_t start;

static void helper(long i) { sink += i; }

static void thread_conv(int n)
{
    for (int i = 0; i < n; i++)
        helper(i);
}

static void batch_norm(int n)
{
    thread_conv(n);
    helper(n);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0};
    pthread_barrier_wait(&start);
    for (int r = 0; r < 500; r++) {
        thread_conv(10);
        batch_norm(5);
        tpop_gemm(0, 0, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    }
    return (void *)(id + (long)c[0] + sink);
}

int main(void)
{
    pthread_t t[4];
    long sum = 0;
    pthread_barrier_init(&start, NULL, 4);
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        sum += (long)r;
    }
    printf("threads %ld\n", sum);
    return 0;
}
