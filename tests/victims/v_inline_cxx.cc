// A std::vector built at two lines of one function, at -O2: operator new is called from
// libstdc++'s inline allocator (new_allocator.h), inlined into the function. Two call sites, each
// down to the function's own line. The MARK comments are what tests/heap_inline.sh looks for.
#include <cstdio>
#include <vector>

std::vector<char> *volatile keep[2];

__attribute__((noinline)) void build()
{
    keep[0] = new std::vector<char>(1000); // MARK:first
    keep[1] = new std::vector<char>(3000); // MARK:second
}

int main()
{
    build(); // MARK:main
    std::puts("ok");
    return 0;
}
