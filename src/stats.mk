# Statistics and machine peaks, shared by the library and the CLI.
libtprofcore_la_SOURCES += src/histo.c src/peaks.c src/peaks.h src/calib.c
