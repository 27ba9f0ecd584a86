# The interposer core: owned by the foundation.
libtprof_la_SOURCES += preload/internal.h preload/uthash_tp.h preload/ops.h \
	preload/state.c preload/hook_malloc.c preload/heap.c preload/heap.h preload/sites.c preload/unwind.c preload/unwind.h preload/stack.c preload/stack.h \
	preload/sites.h preload/exitpaths.c preload/exitpaths.h preload/collect.c preload/collect.h \
	preload/symbolize.c preload/symbolize.h preload/dwlib.c preload/dwlib.h preload/reporter.c preload/reporter.h preload/modules.c preload/modules.h \
	preload/trace.c preload/trace.h preload/optree.c preload/optree.h
