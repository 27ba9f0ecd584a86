/* A plugin loaded with dlopen after start-up (tests/plt_names.sh): its calls into libtpnames.so
 * go through its own PLT, bound lazily (-z lazy), and must be hooked by the scan that follows the
 * dlopen. */
#include "tpnames_calls.h"

long tpnu_run(int n)
{
    return tpnames_rounds(n);
}
