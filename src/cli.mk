# The CLI: src/tprof.c dispatches to one file per subcommand; report, diff and merge read JSON
# reports with json-c (src/json_read.c) and match call sites by src/sitekey.c.
tprof_SOURCES += src/tprof.c src/cli.h src/cmd_run.c src/cmd_calibrate.c src/cmd_report.c \
	src/cmd_diff.c src/calib_blas.c src/diff.c src/diff.h src/cmd_merge.c src/merge.c src/merge.h src/json_read.c src/json_read.h src/json_get.c src/json_get.h src/sitekey.c src/sitekey.h
dist_man_MANS += man/tprof.1 man/libtprof.7
# The reader's fuzz target is built by hand (fuzz/README.md), never by make.
EXTRA_DIST += docs/cli.md fuzz/README.md fuzz/build.sh fuzz/fuzz_json_read.c fuzz/shim_diff.c \
	fuzz/shim_merge.c fuzz/shims.h fuzz/json.dict fuzz/corpus
