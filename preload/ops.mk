# Ops: the registry and statistics, the typed BLAS wrappers, finding real symbols.
libtprof_la_SOURCES += preload/ops.c preload/hook_blas.c preload/resolve.c preload/resolve.h
EXTRA_DIST += docs/ops.md
