# The CLI: src/tprof.c dispatches to one file per subcommand.
tprof_SOURCES += src/tprof.c src/cli.h src/cmd_run.c src/cmd_calibrate.c
