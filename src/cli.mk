# The CLI: src/tprof.c dispatches to one file per subcommand.
tprof_SOURCES += src/tprof.c src/cli.h src/cmd_run.c src/cmd_calibrate.c src/cmd_report.c \
	src/cmd_diff.c src/cmd_merge.c src/json_read.c src/json_read.h src/sitekey.c src/sitekey.h
