# CLI tests: the JSON reader (unit), report / diff / merge on fixtures with exact figures, and
# bad input of every kind (exit 2, one line naming the file).
check_PROGRAMS += tests/check_json_read
tests_check_json_read_SOURCES = tests/check_json_read.c cli/read/json_read.c cli/read/read.h cli/read/json_get.c cli/read/json_get.h
tests_check_json_read_CFLAGS = $(TEST_CFLAGS) $(JSONC_CFLAGS)
tests_check_json_read_LDADD = $(TEST_LIBS) $(JSONC_LIBS)
TESTS += tests/check_json_read tests/cli_tools.sh tests/cli_badinput.sh tests/cli_diff_rollup.sh tests/heap_diff_rollup.sh
EXTRA_DIST += tests/cli_tools.sh tests/cli_badinput.sh tests/cli_diff_rollup.sh tests/heap_diff_rollup.sh tests/fixtures/a.json \
	tests/fixtures/b.json tests/fixtures/c.json tests/fixtures/full.json tests/fixtures/ar.json
# tprof run on programs the dynamic loader will not preload it into: static, set-uid, set-gid.
check_PROGRAMS += tests/victims/v_exitcode
tests_victims_v_exitcode_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/run_static.sh
EXTRA_DIST += tests/run_static.sh
