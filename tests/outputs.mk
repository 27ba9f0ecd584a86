# The trace, the folded stacks and the step schedule, on one training-loop victim.
check_PROGRAMS += tests/victims/v_trace
tests_victims_v_trace_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_trace_LDADD = -lpthread
TESTS += tests/out_trace.sh tests/long_schedule.sh tests/out_html.sh
EXTRA_DIST += tests/out_trace.sh tests/long_schedule.sh tests/tracecheck.py tests/out_html.sh \
	tests/htmlcheck.py
# OpenMP: libgomp's thread pool under the hooks.
check_PROGRAMS += tests/victims/v_omp
tests_victims_v_omp_CFLAGS = $(VICTIM_CFLAGS) -fopenmp -finstrument-functions
tests_victims_v_omp_LDFLAGS = -fopenmp
TESTS += tests/load_openmp.sh
EXTRA_DIST += tests/load_openmp.sh
# Faults: tprof's own tables full.
check_PROGRAMS += tests/victims/v_deepsites
tests_victims_v_deepsites_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/fault_tables.sh
EXTRA_DIST += tests/fault_tables.sh
# exec with an environment copied before fork (tests/proc_exec.sh).
check_PROGRAMS += tests/victims/v_envexec
tests_victims_v_envexec_CFLAGS = $(VICTIM_CFLAGS)
# The trace and folded stacks in speedscope (npm), headless in Chromium.
TESTS += tests/out_speedscope.sh
EXTRA_DIST += tests/out_speedscope.sh tests/speedscope.py
# The folded stacks' unit line and roots, on a hand-made report.
check_PROGRAMS += tests/check_folded
tests_check_folded_SOURCES = tests/check_folded.c
tests_check_folded_CFLAGS = $(TEST_CFLAGS)
tests_check_folded_LDADD = $(TEST_LIBS)
TESTS += tests/check_folded
check_PROGRAMS += tests/victims/v_manysites
tests_victims_v_manysites_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_manysites_LDADD = -lpthread
TESTS += tests/heap_grow.sh
EXTRA_DIST += tests/heap_grow.sh
check_PROGRAMS += tests/victims/v_bigsites
tests_victims_v_bigsites_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/heap_bigsites.sh
EXTRA_DIST += tests/heap_bigsites.sh
# The memory ledger: the peak RSS by part (tests/ledger.sh).
check_PROGRAMS += tests/victims/v_ledger
tests_victims_v_ledger_SOURCES = tests/victims/v_ledger.c
tests_victims_v_ledger_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_ledger_LDADD = -lpthread
TESTS += tests/ledger.sh
EXTRA_DIST += tests/ledger.sh
# The pprof profiles: hand-made reports unpacked again (tests/check_pprof.c), and real runs read
# by tests/pprofread.py, `go tool pprof` and speedscope (tests/out_pprof.sh).
check_PROGRAMS += tests/check_pprof
tests_check_pprof_SOURCES = tests/check_pprof.c
nodist_tests_check_pprof_SOURCES = gen/report/pprof/profile.pb-c.h
tests_check_pprof_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS) $(ZLIB_CFLAGS) -I$(top_builddir)/gen
tests_check_pprof_LDADD = $(TEST_LIBS) $(PROTOBUFC_LIBS) $(ZLIB_LIBS)
TESTS += tests/check_pprof tests/out_pprof.sh
EXTRA_DIST += tests/out_pprof.sh tests/pprofread.py
tests/check_pprof-check_pprof.$(OBJEXT): gen/report/pprof/profile.pb-c.h
