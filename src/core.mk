# Shared core: owned by the foundation (buffers, report model, configuration, paths).
libtprofcore_la_SOURCES += src/buf.c src/buf.h src/report.c src/report.h src/fields.h src/config.c src/config.h \
	src/path.c src/path.h src/clock.h src/clock.c src/fileio.c src/fileio.h
noinst_HEADERS += src/render.h src/histo.h src/cli.h
EXTRA_DIST += autogen.sh scripts/test.sh scripts/demo.sh docs/json-shape.md
