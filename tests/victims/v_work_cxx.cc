// A C++ member function with a work entry named by its qualified name (tests/cyg_work.sh).
#include <cstdio>
namespace nn {
struct Layer {
    float w[4];
    __attribute__((noinline)) float matvec(const float *x, int rows, long cols);
};
float Layer::matvec(const float *x, int rows, long cols)
{
    float s = 0;
    for (int i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++)
            s += w[(i + j) % 4] * x[j % 4];
    return s;
}
} // namespace nn
int main()
{
    nn::Layer l = {{1, 2, 3, 4}};
    float x[4] = {1, 1, 1, 1}, s = 0;
    for (int i = 0; i < 3; i++)
        s += l.matvec(x, 10, 7);
    std::printf("%f\n", (double)s);
}
