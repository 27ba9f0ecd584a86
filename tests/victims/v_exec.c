/* exec: the first image writes its report before exec; the second image writes its own, under
 * a name that does not overwrite the first. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *first_image(size_t n) { return malloc(n); }
void *second_image(size_t n) { return malloc(n); }

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "second")) {
        void *p = second_image(2222);
        (void)p;
        return write(1, "second\n", 7) == 7 ? 0 : 1;
    }
    void *p = first_image(1111);
    (void)p;
    if (write(1, "first\n", 6) != 6)
        return 1;
    execl("/proc/self/exe", argv[0], "second", (char *)NULL);
    return 9;
}
