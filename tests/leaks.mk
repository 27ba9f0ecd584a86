# Leaks: the program's apart from what system libraries keep, suppressions, tprof's own TLS.
check_PROGRAMS += tests/victims/v_leaks
tests_victims_v_leaks_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_leaks_LDADD = -ldl -lpthread
TESTS += tests/heap_leaks.sh tests/heap_suppress.sh tests/heap_tls.sh
EXTRA_DIST += tests/heap_leaks.sh tests/heap_suppress.sh tests/heap_tls.sh
