# Work or wait (issue 27): which code is spin waiting and the rule and sentence of the waiting
# verdict (check_wait); an op blocked in each hooked waiting call and one looping on sched_yield
# (opwait.sh); an OpenMP op whose idle thread spins in libgomp's barrier (opwait_omp.sh).
check_PROGRAMS += tests/check_wait tests/victims/v_opwait tests/victims/v_ompwait
tests_check_wait_SOURCES = tests/check_wait.c
tests_check_wait_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS) -fopenmp
tests_check_wait_LDFLAGS = -fopenmp
tests_check_wait_LDADD = $(TP_TRACK) $(TEST_LIBS)
tests_victims_v_opwait_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_opwait_LDADD = -lpthread
tests_victims_v_ompwait_CFLAGS = $(VICTIM_CFLAGS) -fopenmp
tests_victims_v_ompwait_LDFLAGS = -fopenmp
TESTS += tests/check_wait tests/opwait.sh tests/opwait_omp.sh
EXTRA_DIST += tests/opwait.sh tests/opwait_omp.sh tests/wait_text.py
