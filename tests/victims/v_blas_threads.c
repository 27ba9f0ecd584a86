/* Four threads call the BLAS at once: totals must be exact. */
#include <pthread.h>
#include <stdio.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void cblas_dgemv(int, int, int, int, double, const double *, int, const double *, int, double,
                 double *, int);

enum { THREADS = 4, REPS = 300 };

static void *work(void *arg)
{
    static __thread float a[32 * 32], b[32 * 32], c[32 * 32];
    static __thread double m[24 * 16], x[16], y[24];
    long id = (long)arg;
    for (int i = 0; i < 32 * 32; i++)
        a[i] = b[i] = (float)((i + id) % 9) / 9;
    for (int i = 0; i < 24 * 16; i++)
        m[i] = (double)(i % 4);
    for (int i = 0; i < 16; i++)
        x[i] = 1;
    for (int r = 0; r < REPS; r++) {
        cblas_sgemm(101, 111, 111, 32, 32, 32, 1, a, 32, b, 32, 0, c, 32);
        cblas_dgemv(102, 111, 24, 16, 1, m, 24, x, 1, 0, y, 1);
    }
    double s = 0;
    for (int i = 0; i < 32 * 32; i++)
        s += c[i];
    for (int i = 0; i < 24; i++)
        s += y[i];
    return (void *)(long)s;
}

int main(void)
{
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    long sum = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        sum += (long)r;
    }
    printf("threads %ld\n", sum);
    return 0;
}
