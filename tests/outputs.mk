# The trace, the folded stacks and the step schedule, on one training-loop victim.
check_PROGRAMS += tests/victims/v_trace
tests_victims_v_trace_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_trace_LDADD = -lpthread
TESTS += tests/out_trace.sh tests/long_schedule.sh
EXTRA_DIST += tests/out_trace.sh tests/long_schedule.sh tests/tracecheck.py
