# Ops by name: -finstrument-functions hooks, PLT/GOT hooks on shared-library exports, the
# dlopen/dlclose wrappers that keep them current, symbol names, the annotation API.
libtprof_la_SOURCES += preload/names.h preload/hook_cyg.c preload/symtab.c preload/symtab.h \
	preload/hook_plt.c preload/hook_dl.c preload/api.c
EXTRA_DIST += docs/ops-by-name.md
