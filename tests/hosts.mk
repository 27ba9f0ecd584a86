# The host sweep: real programs and every exit path, natively and under tprof (tests/host_sweep.sh).
check_PROGRAMS += tests/victims/v_hosts tests/victims/v_cxx_exc
tests_victims_v_hosts_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_cxx_exc_SOURCES = tests/victims/v_cxx_exc.cc
tests_victims_v_cxx_exc_CXXFLAGS = -std=c++17 -g -O1 -pthread
tests_victims_v_cxx_exc_LDFLAGS = -pthread
TESTS += tests/host_sweep.sh
EXTRA_DIST += tests/host_sweep.sh
