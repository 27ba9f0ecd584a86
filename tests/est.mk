# Figures that are estimates, and how the report says so: the allocator's time with a second
# thread alive, against a slow allocator below tprof that counts its own time
# (libtpslowalloc.so, preloaded after libtprof.so); the time outside every op, per thread.
check_PROGRAMS += tests/victims/libtpslowalloc.so tests/victims/v_allocspin
tests_victims_libtpslowalloc_so_SOURCES = tests/victims/libtpslowalloc.c
tests_victims_libtpslowalloc_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpslowalloc_so_LDFLAGS = -Wc,-shared
tests_victims_libtpslowalloc_so_LDADD = -ldl
tests_victims_v_allocspin_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_allocspin_LDADD = -lpthread -ldl
TESTS += tests/alloc_est.sh
EXTRA_DIST += tests/alloc_est.sh
check_PROGRAMS += tests/victims/v_outside
tests_victims_v_outside_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_outside_LDADD = -lpthread
TESTS += tests/outside_threads.sh
EXTRA_DIST += tests/outside_threads.sh
check_PROGRAMS += tests/victims/v_threadseq
tests_victims_v_threadseq_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_threadseq_LDADD = -lpthread
TESTS += tests/threads_agree.sh
EXTRA_DIST += tests/threads_agree.sh
check_PROGRAMS += tests/victims/v_alloclive
tests_victims_v_alloclive_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_alloclive_LDADD = -lpthread -ldl
