// A C++ library of the kind a C program links without knowing (darknet's libdarknet.so links
// libstdc++ for its OpenCV glue): C exports whose names match no op pattern, one of which throws,
// a C++ export matched by its demangled name, and set-up the default op list leaves out. Calls
// between its own exports go through its PLT (default visibility, -fPIC, no -fno-semantic-
// interposition), as darknet's do.
#include <stdexcept>

#include "libtpcxx.h"

double cx_solve(int n)
{
    double s = 0;
    for (int i = 1; i <= n * 1000; i++)
        s += 1.0 / i;
    return s;
}

// Throws for a negative value: the exception unwinds through the hooked call into its caller.
int cx_check(int v)
{
    if (v < 0)
        throw std::runtime_error("negative");
    return v * 2;
}

// Catches its own callee's exceptions: it is still running when the handler runs.
int cx_nested(int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++) {
        try {
            sum += cx_check(i % 2 ? -i : i);
        } catch (const std::runtime_error &) {
            sum += 100;
        }
    }
    return sum;
}

// Lets the exception through: two hooked calls unwound at once.
int cx_outer(int v)
{
    return cx_check(v) + 1;
}

int make_cx_thing(int v)
{
    return v + 1;
}

double cx::conv_rows(int n)
{
    return cx_solve(n) * 2;
}

int cx::helper(int v)
{
    return v - 1;
}
