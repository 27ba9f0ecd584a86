// torch's CPU tensor allocator in small, for tests/heap_roles.sh: c10::alloc_cpu, named as in
// libc10.so (64-byte aligned, as torch's).
#include <cstdlib>
#include <cstring>

namespace c10 {
void *alloc_cpu(size_t nbytes)
{
    void *p = nullptr;
    if (posix_memalign(&p, 64, nbytes) != 0)
        return nullptr;
    memset(p, 0, nbytes);
    return p;
}
} // namespace c10
