# Statistics and machine peaks, shared by the library and the CLI. (src/cmd_calibrate.c is in
# tprof_SOURCES via src/cli.mk.)
libtprofcore_la_SOURCES += src/histo.c src/peaks.c src/peaks.h src/calib.c src/calib.h
