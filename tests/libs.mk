# What libtprof.so brings into a program: libc alone (no other DT_NEEDED), nothing the program's
# dlopen/dlclose/RTLD_NOLOAD can see, and no network at exit unless asked for (TPROF_DEBUGINFOD).
check_PROGRAMS += tests/victims/v_noload tests/victims/v_netdebug tests/victims/libtpnodebug.so \
	tests/victims/libtpwalk_a.so tests/victims/libtpwalk_b.so
tests_victims_v_noload_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_netdebug_CFLAGS = $(VICTIM_CFLAGS)
# Stripped, with a build-id: no symbols or DWARF here, no debug file anywhere.
tests_victims_libtpnodebug_so_SOURCES = tests/victims/libtpnodebug.c
tests_victims_libtpnodebug_so_CFLAGS = $(VICTIM_CFLAGS) -g0 -fPIC
tests_victims_libtpnodebug_so_LDFLAGS = -Wc,-shared -Wl,--build-id -Wl,-s -Wl,-soname,libtpnodebug.so
# The same function with two frame sizes, for the walker's dlclose case (tests/check_unwind.c).
tests_victims_libtpwalk_a_so_SOURCES = tests/victims/libtpwalk.c
tests_victims_libtpwalk_a_so_CFLAGS = -DTPWALK_FRAME=8 -fPIC
tests_victims_libtpwalk_a_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpwalk.so
tests_victims_libtpwalk_b_so_SOURCES = tests/victims/libtpwalk.c
tests_victims_libtpwalk_b_so_CFLAGS = -DTPWALK_FRAME=24 -fPIC
tests_victims_libtpwalk_b_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpwalk.so
# A library whose constructor allocates before libtprof.so's constructor runs.
check_PROGRAMS += tests/victims/libtpctor.so tests/victims/v_ctor
tests_victims_libtpctor_so_SOURCES = tests/victims/libtpctor.c
tests_victims_libtpctor_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpctor_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpctor.so
tests_victims_v_ctor_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_ctor_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_ctor_LDADD = tests/victims/libtpctor.so
TESTS += tests/lib_needed.sh tests/lib_noload.sh tests/net_debuginfod.sh tests/lib_ctor.sh
EXTRA_DIST += tests/lib_needed.sh tests/lib_noload.sh tests/net_debuginfod.sh tests/lib_ctor.sh
