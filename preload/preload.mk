# The interposer core: owned by the foundation.
libtprof_la_SOURCES += preload/internal.h preload/uthash_tp.h preload/ops.h
