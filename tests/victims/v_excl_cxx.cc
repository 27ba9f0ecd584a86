// Built by tests/excl_advice.sh with g++ -finstrument-functions, then again with the
// -finstrument-functions-exclude-function-list that tprof's advice gives: net::work (3 calls,
// each 2 ms asleep) calls net::tiny_mix<float, 2> 40000 times, too short to time. Its name holds
// template arguments and a comma, which the flag must not give GCC as they are. Prints a
// checksum.
#include <cstdio>
#include <ctime>

namespace net {
static volatile float sink;

template <typename T, int N> __attribute__((noinline)) void tiny_mix(T x)
{
    sink = sink * 0.5f + x * N;
}

__attribute__((noinline)) void work()
{
    struct timespec t = {0, 2000000};
    while (nanosleep(&t, &t) != 0) {
    }
    for (int i = 0; i < 40000; i++)
        tiny_mix<float, 2>(static_cast<float>(i % 7));
}
} // namespace net

int main()
{
    for (int k = 0; k < 3; k++)
        net::work();
    std::printf("%.3f\n", static_cast<double>(net::sink));
    return 0;
}
