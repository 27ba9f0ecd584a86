# common/: the bottom layer, libc only. Buffers, clocks, the one parser of every TPROF_*
# variable, report path templates, latency histograms, file writing.
libtpcommon_la_SOURCES = common/buf.c common/buf.h common/clock.c common/clock.h \
	common/config.c common/config.h common/parse.c common/parse.h common/out/path.c common/out/out.h common/histo/histo.c common/histo/histo.h common/histo/histo_keep.c common/histo/histo_keep.h \
	common/out/fileio.c common/out/rundir.c common/out/namewalk.c common/out/namewalk.h common/suppress.c common/suppress.h \
	common/pages.c common/pages.h common/out/errout.c common/out/escape.c \
	common/workspec.c common/workspec.h common/workabi.c common/workabi.h \
	common/opsmatch.c common/machine/procstat.c common/machine/machine.c common/machine/machine.h \
	common/names/symindex.c common/names/demangle.c common/names/shortname.c \
	common/names/names.h
libtpcommon_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS)
