# Analysis and renderers: roofline / verdict / Amdahl arithmetic (check_analyze).
check_PROGRAMS += tests/check_analyze
tests_check_analyze_SOURCES = tests/check_analyze.c
tests_check_analyze_CFLAGS = $(TEST_CFLAGS)
tests_check_analyze_LDADD = $(TEST_LIBS)
TESTS += tests/check_analyze
