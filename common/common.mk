# common/: the bottom layer, libc only. Buffers, clocks, the one parser of every TPROF_*
# variable, report path templates, latency histograms, file writing.
libtpcommon_la_SOURCES = common/buf.c common/buf.h common/clock.c common/clock.h \
	common/config.c common/config.h common/parse.c common/parse.h common/path.c common/path.h common/histo.c common/histo.h common/histo_keep.c common/histo_keep.h \
	common/fileio.c common/fileio.h common/namewalk.c common/namewalk.h common/suppress.c common/suppress.h \
	common/pages.c common/pages.h common/errout.c common/errout.h common/escape.c common/escape.h \
	common/workspec.c common/workspec.h common/workabi.c common/workabi.h \
	common/opsmatch.c common/procstat.c common/procstat.h
libtpcommon_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS)
