# Ops tests: the op registry and stack (unit tests), the typed BLAS wrappers against OpenBLAS and
# the reference BLAS, a BLAS loaded RTLD_LOCAL by a plugin, functions no object defines, threads.

# The registry and the op stack, linked straight into the test (never preloaded).
check_PROGRAMS += tests/check_ops
tests_check_ops_SOURCES = tests/check_ops.c tests/probe_ops.c tests/probe.h
tests_check_ops_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_ops_LDADD = $(TP_TRACK) $(TEST_LIBS)
TESTS += tests/check_ops
TESTS += tests/ops_grow.sh
EXTRA_DIST += tests/ops_grow.sh

# Victims not linked to any BLAS: they load it (or fail to) at run time.
check_PROGRAMS += tests/victims/v_blas_plugin tests/victims/v_blas_missing tests/victims/v_blas_reload
tests_victims_v_blas_plugin_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_plugin_LDADD = -ldl
tests_victims_v_blas_reload_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_reload_LDADD = -ldl
tests_victims_v_blas_missing_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_missing_LDADD = -ldl

if HAVE_OPENBLAS
check_PROGRAMS += tests/victims/v_blas tests/victims/v_blas_more tests/victims/v_blas_threads
tests_victims_v_blas_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_LDADD = -lblas
tests_victims_v_blas_more_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_more_LDADD = -lblas
tests_victims_v_blas_threads_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_threads_LDADD = -lblas -lpthread
check_PROGRAMS += tests/victims/v_blas_pool
tests_victims_v_blas_pool_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_pool_LDADD = -lblas
# The plugin: a plain program linked -shared (see tests/cyg.mk), with the BLAS as its own
# dependency.
check_PROGRAMS += tests/victims/libtpblasplug.so
tests_victims_libtpblasplug_so_SOURCES = tests/victims/libtpblasplug.c
tests_victims_libtpblasplug_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpblasplug_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpblasplug.so
tests_victims_libtpblasplug_so_LDADD = -lblas
endif

# A plugin with its own cblas_ddot, in two versions, and a program that reloads it from one path.
check_PROGRAMS += tests/victims/libtpreplug1.so tests/victims/libtpreplug2.so tests/victims/v_reload
tests_victims_libtpreplug1_so_SOURCES = tests/victims/libtpreplug.c
tests_victims_libtpreplug1_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -DTPREPLUG_VERSION=1
tests_victims_libtpreplug1_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpreplug.so
tests_victims_libtpreplug2_so_SOURCES = tests/victims/libtpreplug.c
tests_victims_libtpreplug2_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -DTPREPLUG_VERSION=2
tests_victims_libtpreplug2_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpreplug.so
tests_victims_v_reload_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_reload_LDADD = -ldl
TESTS += tests/dl_reload.sh
EXTRA_DIST += tests/dl_reload.sh

# A stand-in BLAS that allocates inside cblas_sgemm, and its user.
check_PROGRAMS += tests/victims/libtpfakeblas.so tests/victims/v_blas_alloc
tests_victims_libtpfakeblas_so_SOURCES = tests/victims/libtpfakeblas.c
tests_victims_libtpfakeblas_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpfakeblas_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpfakeblas.so
tests_victims_v_blas_alloc_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_alloc_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_blas_alloc_LDADD = tests/victims/libtpfakeblas.so

TESTS += tests/blas_alloc.sh tests/blas_ops.sh tests/blas_more.sh tests/blas_plugin.sh tests/blas_missing.sh \
	tests/blas_threads.sh tests/blas_reload.sh tests/blas_pool.sh
EXTRA_DIST += tests/blas_alloc.sh tests/blas_ops.sh tests/blas_more.sh tests/blas_plugin.sh tests/blas_missing.sh \
	tests/blas_threads.sh tests/blas_reload.sh tests/blas_pool.sh
