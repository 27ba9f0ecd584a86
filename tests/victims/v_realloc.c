/* A realloc growth chain, realloc(NULL, n), realloc(p, 0), reallocarray and a failed realloc. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    char *p = realloc(NULL, 100);          /* alloc 100 */
    for (size_t n = 200; n <= 102400; n *= 2)
        p = realloc(p, n);                 /* 10 reallocs: 200 .. 102400 */
    p = realloc(p, 0);                     /* glibc: frees, returns NULL */
    if (p)
        return 2;
    int *q = reallocarray(NULL, 10, sizeof(int)); /* 40 */
    q = reallocarray(q, 20, sizeof(int));          /* 80 */
    errno = 0;
    void *r = reallocarray(q, SIZE_MAX / 2, 4);    /* overflow: NULL, q stays live */
    if (r || errno != ENOMEM)
        return 3;
    void *huge = realloc(q, (size_t)1 << 62);      /* fails, q stays live */
    if (huge)
        return 4;
    free(q);
    return write(1, "ok\n", 3) == 3 ? 0 : 1;
}
