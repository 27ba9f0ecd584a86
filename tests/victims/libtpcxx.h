// The exports of libtpcxx.so (tests/victims/libtpcxx.cc), for it and for the program that calls
// them (tests/victims/v_cxx_plt.cc).
#ifndef TPROF_LIBTPCXX_H
#define TPROF_LIBTPCXX_H

extern "C" {
double cx_solve(int n);
int cx_check(int v);
int cx_nested(int n);
int cx_outer(int v);
int make_cx_thing(int v);
}

namespace cx {
double conv_rows(int n);
int helper(int v);
} // namespace cx

#endif
