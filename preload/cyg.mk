# Ops by name: -finstrument-functions hooks, symbol names, the annotation API.
libtprof_la_SOURCES += preload/hook_cyg.c preload/symtab.c preload/symtab.h preload/api.c
