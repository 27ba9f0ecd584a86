# ./configure --enable-sanitizers: the CLI and the Check unit tests are built with ASan and UBSan
# (any finding fails the test: -fno-sanitize-recover). libtprof.so never is: ASan must be the first
# DSO of a process and replaces malloc, so an instrumented libtprof.so could not be preloaded into
# an ordinary program, and its malloc shims would sit behind ASan's. common/ and report/ are therefore
# built twice, instrumented for the CLI and the tests, plain for the library. Shell scenarios go
# through tests/sanitize_gate.sh, which runs the CLI ones and skips those that preload the library
# (the normal build runs them). Included last: it extends what the other fragments define.
if SANITIZE
SAN_CFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
noinst_LTLIBRARIES += libtpcommon_san.la libtpreport_san.la libtpreporter_san.la
libtpcommon_san_la_SOURCES = $(libtpcommon_la_SOURCES)
libtpcommon_san_la_CFLAGS = $(libtpcommon_la_CFLAGS) $(SAN_CFLAGS)
libtpreport_san_la_SOURCES = $(libtpreport_la_SOURCES)
libtpreport_san_la_CFLAGS = $(libtpreport_la_CFLAGS) $(SAN_CFLAGS)
libtpreporter_san_la_SOURCES = $(libtpreporter_la_SOURCES)
nodist_libtpreporter_san_la_SOURCES = $(nodist_libtpreporter_la_SOURCES)
libtpreporter_san_la_CFLAGS = $(libtpreporter_la_CFLAGS) $(SAN_CFLAGS)
libtpreporter_san_la_LIBADD = $(libtpreporter_la_LIBADD)
libtptrack_san_la_SOURCES = $(libtptrack_la_SOURCES)
libtptrack_san_la_CFLAGS = $(libtptrack_la_CFLAGS) $(SAN_CFLAGS)
noinst_LTLIBRARIES += libtptrack_san.la
TP_CORE = libtpreporter_san.la libtpreport_san.la libtpcommon_san.la
TP_TRACK = libtptrack_san.la
# Per-target CFLAGS also reach automake's link line, which is where -fsanitize must be too.
tprof_CFLAGS += $(SAN_CFLAGS)
TEST_CFLAGS += $(SAN_CFLAGS)
AM_SH_LOG_FLAGS = $(srcdir)/tests/sanitize_gate.sh '$(SHELL)'
# Instrumented code runs 2-3 times slower: Check's per-test time limits grow to match.
AM_TESTS_ENVIRONMENT += export ASAN_OPTIONS=detect_leaks=1; \
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export CK_TIMEOUT_MULTIPLIER=3;
# make check-sanitized: only what runs instrumented (scripts/test.sh), without building the
# victims, examples and benchmarks whose tests are skipped here anyway. check_symtab reads
# libtpop.so.
SAN_TESTS = $(filter tests/check_% tests/cli_%.sh tests/schema_validate.sh,$(TESTS))
check-sanitized: tprof $(filter tests/check_%,$(check_PROGRAMS)) tests/victims/libtpop.so
	$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='$(SAN_TESTS)'
else
TP_CORE = libtpreporter.la libtpreport.la libtpcommon.la
TP_TRACK = libtptrack.la
endif
EXTRA_DIST += tests/sanitize_gate.sh
.PHONY: check-sanitized
