check_PROGRAMS += tests/check_histo
tests_check_histo_SOURCES = tests/check_histo.c
tests_check_histo_CFLAGS = $(TEST_CFLAGS)
tests_check_histo_LDADD = $(TEST_LIBS)
TESTS += tests/check_histo
