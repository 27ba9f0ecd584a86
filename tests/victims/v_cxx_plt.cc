// An unmodified C++ program calling a C++-linked library (libtpcxx.so) through the PLT, for
// tests/cxx_plt.sh: exceptions thrown inside hooked calls and caught in the caller, inside the
// library, and two hooked calls away. Prints what it computed; exit status 0.
#include <cstdio>
#include <stdexcept>

#include "libtpcxx.h"

int main()
{
    double s = 0;
    long caught = 0, sum = make_cx_thing(1);
    for (int i = 0; i < 3; i++)
        s += cx_solve(10 + i);
    for (int i = 0; i < 2; i++)
        sum += cx_check(i + 1);
    for (int i = 0; i < 3; i++) {
        try {
            sum += cx_check(-1);
        } catch (const std::runtime_error &e) {
            caught += e.what()[0];
        }
    }
    for (int i = 0; i < 2; i++)
        sum += cx_nested(4);
    for (int i = 0; i < 2; i++) {
        try {
            sum += cx_outer(-2);
        } catch (const std::exception &) {
            caught++;
        }
    }
    for (int i = 0; i < 2; i++)
        s += cx::conv_rows(5) + cx::helper(i);
    std::printf("s=%.6f sum=%ld caught=%ld\n", s, sum, caught);
    return 0;
}
