# Statistics and machine peaks: the histogram and the peaks cache (unit), tprof calibrate and
# the library's use of the cache, the conditions of a measurement, a busy machine (shell).
check_PROGRAMS += tests/check_histo tests/check_peaks
tests_check_histo_SOURCES = tests/check_histo.c tests/probe_histo.c tests/probe.h
tests_check_histo_CFLAGS = $(TEST_CFLAGS)
tests_check_histo_LDADD = $(TEST_LIBS)
tests_check_peaks_SOURCES = tests/check_peaks.c cli/calib_blas.c
tests_check_peaks_CFLAGS = $(TEST_CFLAGS)
tests_check_peaks_LDADD = $(TEST_LIBS) -ldl
TESTS += tests/check_histo tests/check_peaks tests/calibrate.sh tests/peaks_cache.sh \
	tests/peaks_conditions.sh tests/peaks_busy.sh
EXTRA_DIST += tests/calibrate.sh tests/peaks_cache.sh tests/peaks_conditions.sh tests/peaks_busy.sh
# The test suite's word on how quiet the machine was, preloaded before libtprof.so or into the
# tprof executable (calibrate.sh, peaks_conditions.sh).
check_PROGRAMS += tests/victims/libtpcalib.so
tests_victims_libtpcalib_so_SOURCES = tests/victims/libtpcalib.c
tests_victims_libtpcalib_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpcalib_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpcalib.so
# Work specifications (TPROF_WORK): the formula compiler.
check_PROGRAMS += tests/check_workspec
tests_check_workspec_SOURCES = tests/check_workspec.c
tests_check_workspec_CFLAGS = $(TEST_CFLAGS)
tests_check_workspec_LDADD = $(TEST_LIBS)
TESTS += tests/check_workspec
# The quick peaks measurement never counts in a peak RSS a report gives.
check_PROGRAMS += tests/victims/v_rsspeak
tests_victims_v_rsspeak_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/peaks_rss.sh
EXTRA_DIST += tests/peaks_rss.sh
check_PROGRAMS += tests/victims/v_child_quiet
tests_victims_v_child_quiet_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/out_reporter.sh
EXTRA_DIST += tests/out_reporter.sh
TESTS += tests/out_run.sh
EXTRA_DIST += tests/out_run.sh
