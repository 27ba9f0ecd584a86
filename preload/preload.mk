# preload/: the only code that defines interposed names (the malloc family, BLAS, the
# -finstrument-functions hooks, PLT/GOT stubs, dlopen, signals, exit, exec and spawn), the life cycle
# of libtprof.so and the annotation API. Calls track/, report/ and common/.
libtprof_la_SOURCES += preload/hook/hook.h preload/main.c preload/main.h preload/lifecycle.c \
	preload/lifecycle.h preload/hook/hook_malloc.c preload/hook/alloc_time.h preload/shim_signal.c preload/shim_signal.h \
	preload/shim_exit.c preload/shim_exit.h preload/shim_spawn.c preload/execenv.c preload/execenv.h preload/reporter.c preload/reporter.h preload/handoff.c preload/handoff.h \
	preload/hook/hook_blas.c preload/real.c preload/real.h preload/hook/hook_cyg.c \
	preload/plt/plt_patch.c preload/plt/shim_plt.c preload/plt/shim_plt.h preload/plt/shim_unwind.c preload/plt/plt.h preload/hook/hook_dl.c \
	preload/plt/plt_pool.c preload/plt/plt_pool.h preload/plt/plt_mods.c preload/plt/plt_mods.h \
	preload/api.c preload/shim.h preload/hook/hook_thread.c preload/hook/hook_mmap.c preload/shim_clone.c preload/hook/hook_wait.c \
	preload/hook/hook_cuda.c preload/hook/hook_cublas.c
EXTRA_DIST += docs/ops-by-name.md
