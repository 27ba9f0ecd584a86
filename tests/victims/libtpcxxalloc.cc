// A C++ library that a C program loads with dlopen's default RTLD_LOCAL, as python3 loads torch:
// its libstdc++ comes in with it, out of the global scope. Its allocations are made in C++
// functions, one of them left allocated at exit.
#include <cstddef>

namespace cxa
{
struct Buffer {
    static char *fill(std::size_t n);
};

char *Buffer::fill(std::size_t n)
{
    char *p = new char[n];
    for (std::size_t i = 0; i < n; i++)
        p[i] = static_cast<char>(i);
    return p;
}

template <typename T> T *make_table(int n)
{
    return new T[n]();
}
} // namespace cxa

static char *kept;

extern "C" int cxa_run(int n)
{
    char *a = cxa::Buffer::fill(static_cast<std::size_t>(n));
    double *t = cxa::make_table<double>(n);
    int s = a[n - 1] + static_cast<int>(t[0]);
    delete[] a;
    delete[] t;
    kept = cxa::Buffer::fill(4096); // still allocated at exit
    return s + kept[1];
}
