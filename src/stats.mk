# Statistics shared by the library and the CLI.
libtprofcore_la_SOURCES += src/histo.c
