# The CLI: cli/tprof.c dispatches to one file per subcommand; report, diff and merge read JSON
# reports with json-c (cli/read/json_read.c) and match call sites by cli/sitekey.c.
tprof_SOURCES += cli/tprof.c cli/cli.h cli/shown.c cli/cmd_run.c cli/runcheck.c cli/cmd_calibrate.c cli/cmd_report.c \
	cli/cmd_diff.c cli/calib_blas.c cli/diff/diff.c cli/diff/diff.h cli/diff/diff_grid.c cli/diff/diff_grid.h cli/diff/diff_rollup.c cli/diff/diff_stat.c cli/cmd_merge.c cli/merge/merge.c cli/merge/merge_rollup.c cli/merge/merge_cpu.c cli/merge/merge_latency.c cli/merge/merge_modules.c cli/merge/merge.h cli/read/json_read.c cli/read/read.h cli/read/json_get.c cli/read/json_get.h cli/read/sitekey.c
dist_man_MANS += man/tprof.1 man/libtprof.7
# The reader's fuzz target is built by hand (fuzz/README.md), never by make.
EXTRA_DIST += docs/cli.md fuzz/README.md fuzz/build.sh fuzz/fuzz_json_read.c fuzz/shim_diff.c \
	fuzz/shim_merge.c fuzz/shims.h fuzz/json.dict fuzz/corpus
