# report/: the report model (one field list drives the JSON writer, the reader and the free),
# its analysis (roofline, verdict, Amdahl), the renderers and the machine's peaks. Calls common/.
libtpreport_la_SOURCES = report/report.c report/report.h report/fields.h report/runtimes.c report/series.c report/series.h report/render/render_json.c
libtpreport_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS)
# The reporter: everything the tprof program does to a record and nothing libtprof.so links:
# naming frames (libdw), classifying sites, the analysis, the renderers and the machine's peaks.
libtpreporter_la_SOURCES = report/record.c report/record.h report/sitelines.c report/siterollup.h report/siteclass.c report/analyze/analyze.c \
	report/render/render.h report/render/render_text.c report/render/render_text.h \
	report/render/render_text_memory.c report/render/render_text_ledger.c report/render/render_text_gpu.c report/render/render_text_steps.c report/render/render_text_wait.c report/render/render_text_notes.c report/render/render_text_verdict.c report/render/render_text_layout.c report/render/render_html.c report/render/render_html.h report/render/html_cells.c report/render/html_tables.c report/render/html_gpu.c report/render/render_folded.c report/pprof/render_pprof.c report/pprof/pprof_build.c report/pprof/pprof_build.h report/analyze/outside.c report/units.c report/units.h \
	report/peaks/peaks.c report/peaks/peaks_file.c report/peaks/peaks_text.c report/peaks/peaks.h report/peaks/calib.c report/peaks/calib_cond.c \
	report/estimate.h report/analyze/cpuverdict.c report/analyze/analyze.h report/analyze/opwait.c report/analyze/advice.c report/analyze/ledger.c \
	report/analyze/analyze_nested.c report/analyze/analyze_nested.h \
	report/sym/sym.h report/sym/symbolize.c report/sym/syminline.c report/sym/syminline.h report/sym/symdebug.c report/sym/symdebug.h
libtpreporter_la_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) $(PROTOBUFC_CFLAGS) $(ZLIB_CFLAGS) -I$(top_builddir)/gen
libtpreporter_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(PROTOBUFC_LIBS) $(ZLIB_LIBS)
EXTRA_DIST += docs/json-shape.md

# The HTML report's style and script, kept as plain files and made into C strings at build time.
nodist_libtpreporter_la_SOURCES = report/html_assets.inc gen/report/pprof/profile.pb-c.c gen/report/pprof/profile.pb-c.h
BUILT_SOURCES = report/html_assets.inc gen/report/pprof/profile.pb-c.h
CLEANFILES += report/html_assets.inc gen/report/pprof/profile.pb-c.c gen/report/pprof/profile.pb-c.h
EXTRA_DIST += report/render/html_page.css report/render/html_page.js docs/cnn-html.png
TP_C_STRING = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/'
report/html_assets.inc: $(srcdir)/report/render/html_page.css $(srcdir)/report/render/html_page.js
	$(AM_V_GEN)$(MKDIR_P) report && { \
	  echo '/* Generated from report/render/html_page.css and report/render/html_page.js: edit those. */'; \
	  echo 'static const char tp_html_css[] ='; $(TP_C_STRING) $(srcdir)/report/render/html_page.css; echo ';'; \
	  echo 'static const char tp_html_js[] ='; $(TP_C_STRING) $(srcdir)/report/render/html_page.js; echo ';'; \
	} > $@-t && mv $@-t $@
# Also for targets that build no 'all' first (make check-sanitized), where BUILT_SOURCES is not made.
report/render/libtpreporter_la-render_html.lo report/render/libtpreporter_san_la-render_html.lo: report/html_assets.inc

# The pprof format's messages (report/pprof/profile.proto), compiled by protoc-c into gen/ of the
# build tree (apart from the sources, which the style and file-map checks read): the .c and the .h
# come from one run, made by the .h's rule. Included as "report/pprof/profile.pb-c.h".
EXTRA_DIST += report/pprof/profile.proto
gen/report/pprof/profile.pb-c.h: $(srcdir)/report/pprof/profile.proto
	$(AM_V_GEN)$(MKDIR_P) gen && \
	  $(PROTOC_C) --proto_path=$(srcdir) --c_out=gen $(srcdir)/report/pprof/profile.proto
gen/report/pprof/profile.pb-c.c: gen/report/pprof/profile.pb-c.h
	@test -f $@ || { rm -f gen/report/pprof/profile.pb-c.h; $(MAKE) $(AM_MAKEFLAGS) gen/report/pprof/profile.pb-c.h; }
report/pprof/libtpreporter_la-render_pprof.lo report/pprof/libtpreporter_san_la-render_pprof.lo \
report/pprof/libtpreporter_la-pprof_build.lo report/pprof/libtpreporter_san_la-pprof_build.lo: gen/report/pprof/profile.pb-c.h
