// C++ new/delete reach malloc through libstdc++; the site is the caller of operator new.
#include <unistd.h>
#include <vector>

struct Block { char data[4000]; };

static Block *make_block() { return new Block; }

int main()
{
    int *arr = new int[1000];   // 4000 bytes
    Block *b = make_block();    // 4000 bytes
    arr[999] = b->data[0] = 1;  // used, so the compiler cannot elide the pair
    if (write(1, "", (size_t)(arr[999] - 1)) < 0)
        return 1;
    delete[] arr;
    delete b;
    Block *leak = make_block(); // 4000 bytes, never freed
    (void)leak;
    return write(1, "ok\n", 3) == 3 ? 0 : 1;
}
