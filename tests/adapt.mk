# Ops found without settings: the exports of a C++-linked library (exceptions through hooked
# calls), names that begin with another op's name, tiny hot functions demoted to counts.
check_PROGRAMS += tests/victims/libtpcxx.so tests/victims/v_cxx_plt
tests_victims_libtpcxx_so_SOURCES = tests/victims/libtpcxx.cc tests/victims/libtpcxx.h
tests_victims_libtpcxx_so_CXXFLAGS = -g -O1 -fno-inline -fPIC
tests_victims_libtpcxx_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpcxx.so
tests_victims_v_cxx_plt_SOURCES = tests/victims/v_cxx_plt.cc
tests_victims_v_cxx_plt_CXXFLAGS = -g -O1 -fno-inline
tests_victims_v_cxx_plt_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_cxx_plt_LDADD = tests/victims/libtpcxx.so
TESTS += tests/cxx_plt.sh
EXTRA_DIST += tests/cxx_plt.sh
check_PROGRAMS += tests/victims/libtpprefix.so tests/victims/v_adapt
tests_victims_libtpprefix_so_SOURCES = tests/victims/libtpprefix.c
tests_victims_libtpprefix_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpprefix_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpprefix.so
tests_victims_v_adapt_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_adapt_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_adapt_LDADD = tests/victims/libtpprefix.so -lpthread
check_PROGRAMS += tests/victims/v_lptiny
tests_victims_v_lptiny_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_lptiny_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_lptiny_LDADD = tests/victims/libtpprefix.so
TESTS += tests/adapt_ops.sh tests/demote_line.sh
EXTRA_DIST += tests/adapt_ops.sh tests/demote_line.sh
# The advice to leave the hooks of tiny functions out of the build, followed (excl_advice.sh
# builds its victim itself, twice: the second time with the flag the advice gave).
TESTS += tests/excl_advice.sh
EXTRA_DIST += tests/excl_advice.sh tests/victims/v_excl.c tests/victims/v_excl_cxx.cc
