// A C++ program with threads and exceptions, for tests/host_sweep.sh: two std::threads each
// throw and catch 1,000 exceptions carrying a std::string, and fill std::vectors. The unwinder
// (libgcc_s) runs inside the hooked allocator's callers; the output is a fixed checksum.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static long work(int seed)
{
    long sum = 0;
    for (int i = 0; i < 1000; i++) {
        std::vector<int> v(static_cast<size_t>(100 + i % 50), seed + i);
        try {
            if (i % 3 == 0)
                throw std::runtime_error("step " + std::to_string(i));
            sum += v.back();
        } catch (const std::runtime_error &e) {
            sum += static_cast<long>(e.what()[0]);
        }
    }
    return sum;
}

int main()
{
    long a = 0, b = 0;
    std::thread t1([&] { a = work(1); });
    std::thread t2([&] { b = work(2); });
    t1.join();
    t2.join();
    std::printf("sum %ld\n", a + b);
    return 0;
}
