/* uthash, sent to the real allocator so that tprof's own tables never re-enter accounting
 * (an allocation recorded inside a hook would recurse). Include this instead of <uthash.h>. */
#ifndef TPROF_UTHASH_TP_H
#define TPROF_UTHASH_TP_H
#include "track/runtime.h"
#define HASH_NONFATAL_OOM        1
#define uthash_malloc(sz)        tp_alloc(sz)
#define uthash_free(p, sz)       tp_free(p)
#define uthash_nonfatal_oom(obj) ((void)0)
#define uthash_fatal(msg)        ((void)0)
#include <uthash.h>
#endif
