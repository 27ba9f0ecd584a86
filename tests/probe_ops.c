/* track/ops/ops.c with the depth of this thread's op stack (tests/probe.h). */
#include "track/ops/ops.c"

#include "tests/probe.h"

int tp_op_depth(void)
{
    return stack.depth;
}
