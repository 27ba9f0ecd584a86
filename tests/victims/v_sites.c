/* Three call sites with known sizes; the expected figures are in tests/heap_sites.sh.
 * Output goes through write(2) so that stdio allocates nothing. */
#include <stdlib.h>
#include <unistd.h>

void *site_a(size_t n) { return malloc(n); }
void *site_b(size_t n) { return malloc(n); }
void *site_c(size_t n) { return calloc(n, 1); }

int main(void)
{
    void *a[3], *b[2], *c;
    for (int i = 0; i < 3; i++)
        a[i] = site_a(1000);   /* heap 3000 */
    for (int i = 0; i < 2; i++)
        b[i] = site_b(5000);   /* 13000 */
    free(b[0]);                /* 8000 */
    c = site_c(4000);          /* 12000 */
    free(c);                   /* 8000 */
    c = site_c(6000);          /* 14000: the peak; a 3000, b 5000, c 6000 */
    free(c);
    free(a[0]);                /* at exit: a 2000, b 5000 */
    if (write(1, "done\n", 5) != 5)
        return 1;
    return 0;
}
