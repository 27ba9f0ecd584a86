// Built with -finstrument-functions: C++ exceptions thrown through nested ops, caught further
// up; the op stack stays sound and every count exact (tests/cyg_cxx.sh).
#include <cstdio>
#include <stdexcept>

namespace net {

static volatile int sink;

void inner_softmax(int i)
{
    sink += i;
    if (i % 3 == 0)
        throw std::runtime_error("bad row");
}

void conv_layer(int i)
{
    inner_softmax(i);
    sink += 1;
}

int forward_pass(int i)
{
    try {
        conv_layer(i);
    } catch (const std::runtime_error &) {
        return 1;
    }
    return 0;
}

} // namespace net

int main()
{
    int caught = 0;
    for (int i = 0; i < 12; i++)
        caught += net::forward_pass(i);
    for (int i = 1; i < 6; i++)
        if (i % 3)
            net::conv_layer(i);
    std::printf("caught %d\n", caught);
    return 0;
}
