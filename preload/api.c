/* The annotation API of include/tprof.h: named regions, work of the current op, step markers. */
#include "preload/shim.h"
#include "track/ops/ops.h"
#include "track/runtime.h"

TP_EXPORT TP_NOINSTR void tprof_api_region_begin(const char *name)
{
    if (!tp_running() || tp_guard || !name)
        return;
    tp_op_begin(tp_op_intern(name, "region", TP_SRC_API), 0, 0);
}

TP_EXPORT TP_NOINSTR void tprof_api_region_end(const char *name)
{
    if (!tp_running() || tp_guard || !name)
        return;
    tp_op_end(tp_op_intern(name, "region", TP_SRC_API), 0, 0, 0, 0, NULL);
}

TP_EXPORT TP_NOINSTR void tprof_api_add_flops(uint64_t flops)
{
    tp_op_add_work(flops, 0);
}

TP_EXPORT TP_NOINSTR void tprof_api_add_bytes(uint64_t bytes)
{
    tp_op_add_work(0, bytes);
}

TP_EXPORT TP_NOINSTR void tprof_api_step(void)
{
    tp_step_mark();
}
