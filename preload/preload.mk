# preload/: the only code that defines interposed names (the malloc family, BLAS, the
# -finstrument-functions hooks, PLT/GOT stubs, dlopen, signals, exit and exec), the life cycle
# of libtprof.so and the annotation API. Calls core/, report/ and common/.
libtprof_la_SOURCES += preload/names.h preload/state.c preload/hook_malloc.c \
	preload/exitpaths.c preload/exitpaths.h preload/reporter.c preload/reporter.h \
	preload/hook_blas.c preload/resolve.c preload/resolve.h preload/hook_cyg.c \
	preload/hook_plt.c preload/hook_dl.c preload/api.c
EXTRA_DIST += docs/ops-by-name.md
