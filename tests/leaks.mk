# Leaks: the program's apart from what system libraries keep, suppressions, tprof's own TLS.
check_PROGRAMS += tests/check_leaks tests/victims/v_leaks
tests_check_leaks_SOURCES = tests/check_leaks.c
tests_check_leaks_CFLAGS = $(TEST_CFLAGS)
tests_check_leaks_LDADD = $(TEST_LIBS)
tests_victims_v_leaks_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_leaks_LDADD = -ldl -lpthread
TESTS += tests/check_leaks tests/heap_leaks.sh tests/heap_suppress.sh tests/heap_tls.sh
EXTRA_DIST += tests/heap_leaks.sh tests/heap_suppress.sh tests/heap_tls.sh
# Leaks of plugins unloaded before exit, and of the libraries that went with them, named by module.
check_PROGRAMS += tests/victims/v_dlgone tests/victims/libtpgone.so tests/victims/libtpgone2.so \
    tests/victims/libtpgonedep.so
tests_victims_v_dlgone_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_dlgone_LDADD = -ldl
tests_victims_libtpgone_so_SOURCES = tests/victims/libtpgone.c
tests_victims_libtpgone_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpgone_so_LDFLAGS = -Wc,-shared
tests_victims_libtpgonedep_so_SOURCES = tests/victims/libtpgone.c
tests_victims_libtpgonedep_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -DTPGONE_DEP
tests_victims_libtpgonedep_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpgonedep.so
tests_victims_libtpgone2_so_SOURCES = tests/victims/libtpgone.c
tests_victims_libtpgone2_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -DTPGONE_TWO
tests_victims_libtpgone2_so_LDFLAGS = -Wc,-shared
tests_victims_libtpgone2_so_LDADD = tests/victims/libtpgonedep.so
TESTS += tests/heap_gone.sh
EXTRA_DIST += tests/heap_gone.sh
# The sampled heap is gone: TPROF_SAMPLE is said to be ignored, once, and the heap recorded
# exactly; the sampled mode's old reports still read.
check_PROGRAMS += tests/victims/v_sample
tests_victims_v_sample_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_sample_LDADD = -lpthread
TESTS += tests/heap_sample_gone.sh
EXTRA_DIST += tests/heap_sample_gone.sh tests/fixtures/sampled.json
# The global peak with two threads racing (issue 19).
check_PROGRAMS += tests/victims/v_peak2
tests_victims_v_peak2_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_peak2_LDADD = -lpthread
TESTS += tests/heap_peak2.sh
EXTRA_DIST += tests/heap_peak2.sh
# Labels by role: a framework's tensors, what an interpreter keeps at exit.
check_PROGRAMS += tests/victims/libtpc10.so tests/victims/libtpext.so tests/victims/v_roles
tests_victims_libtpc10_so_SOURCES = tests/victims/libtpc10.cc
tests_victims_libtpc10_so_CXXFLAGS = -g -O1 -fPIC
tests_victims_libtpc10_so_LDFLAGS = -Wc,-shared -Wl,-soname,libc10.so
tests_victims_libtpext_so_SOURCES = tests/victims/libtpext.c
tests_victims_libtpext_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpext_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpext.so
tests_victims_v_roles_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_roles_LDADD = tests/victims/libtpc10.so tests/victims/libtpext.so
TESTS += tests/heap_roles.sh tests/heap_roles_py.sh
EXTRA_DIST += tests/heap_roles.sh tests/heap_roles_py.sh
# The report's module map: build-ids read in memory, dlclosed plugins kept with theirs, and one
# linked without a build-id.
check_PROGRAMS += tests/victims/libtpnoid.so
tests_victims_libtpnoid_so_SOURCES = tests/victims/libtpgone.c
tests_victims_libtpnoid_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpnoid_so_LDFLAGS = -Wc,-shared -Wl,--build-id=none
TESTS += tests/modules.sh
EXTRA_DIST += tests/modules.sh
