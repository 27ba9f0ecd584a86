# Leaks: the program's apart from what system libraries keep, suppressions, tprof's own TLS.
check_PROGRAMS += tests/check_leaks tests/victims/v_leaks
tests_check_leaks_SOURCES = tests/check_leaks.c
tests_check_leaks_CFLAGS = $(TEST_CFLAGS)
tests_check_leaks_LDADD = $(TEST_LIBS)
tests_victims_v_leaks_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_leaks_LDADD = -ldl -lpthread
TESTS += tests/check_leaks tests/heap_leaks.sh tests/heap_suppress.sh tests/heap_tls.sh
EXTRA_DIST += tests/heap_leaks.sh tests/heap_suppress.sh tests/heap_tls.sh
# The sampled heap mode: estimates within their stated error over a fixed set of seeds; exact
# global figures across threads, realloc and the aligned family.
check_PROGRAMS += tests/victims/v_sample
tests_victims_v_sample_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_sample_LDADD = -lpthread
TESTS += tests/heap_sample.sh
EXTRA_DIST += tests/heap_sample.sh
check_PROGRAMS += tests/check_heapsample
tests_check_heapsample_SOURCES = tests/check_heapsample.c
tests_check_heapsample_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_heapsample_LDADD = $(TP_TRACK) $(TEST_LIBS)
TESTS += tests/check_heapsample
# The global peak with two threads racing, exact and sampled (issue 19).
check_PROGRAMS += tests/victims/v_peak2
tests_victims_v_peak2_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_peak2_LDADD = -lpthread
TESTS += tests/heap_peak2.sh
EXTRA_DIST += tests/heap_peak2.sh
