# preload/: the only code that defines interposed names (the malloc family, BLAS, the
# -finstrument-functions hooks, PLT/GOT stubs, dlopen, signals, exit, exec and spawn), the life cycle
# of libtprof.so and the annotation API. Calls track/, report/ and common/.
libtprof_la_SOURCES += preload/cyg.h preload/main.c preload/main.h preload/lifecycle.c \
	preload/lifecycle.h preload/hook_malloc.c preload/alloc_time.h preload/shim_signal.c preload/shim_signal.h \
	preload/shim_exit.c preload/shim_exit.h preload/shim_spawn.c preload/execenv.c preload/execenv.h preload/reporter.c preload/reporter.h \
	preload/hook_blas.c preload/real.c preload/real.h preload/hook_cyg.c \
	preload/plt_patch.c preload/shim_plt.c preload/shim_plt.h preload/shim_unwind.c preload/plt_patch.h preload/hook_dl.c \
	preload/plt_pool.c preload/plt_pool.h preload/plt_mods.c preload/plt_mods.h \
	preload/api.c preload/shim.h preload/hook_thread.c preload/shim_clone.c preload/hook_wait.c
EXTRA_DIST += docs/ops-by-name.md
