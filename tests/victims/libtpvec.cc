// tests/plt_sysmodel.sh: a C++ library whose export fills a std::vector, calling the
// _M_realloc_insert instantiation it exports itself through its PLT ("void std::vector<float>::
// _M_realloc_insert(__gnu_cxx::__normal_iterator<...>)": the standard library's, never an op,
// though its parameters match *norm*).
#include <vector>

extern "C" float vec_fill(int n)
{
    std::vector<float> v;
    for (int i = 0; i < n; i++)
        v.push_back(static_cast<float>(i));
    return v.empty() ? 0.0f : v.back();
}
