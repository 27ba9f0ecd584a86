# report/: the report model (one field list drives the JSON writer, the reader and the free),
# its analysis (roofline, verdict, Amdahl), the renderers and the machine's peaks. Calls common/.
libtpreport_la_SOURCES = report/report.c report/siteclass.c report/report.h report/fields.h report/analyze.c \
	report/render.h report/render_json.c report/render_text.c report/render_text.h \
	report/render_text_memory.c report/render_text_layout.c report/render_folded.c report/units.c report/units.h \
	report/peaks.c report/peaks_text.c report/peaks.h report/calib.c report/calib.h \
	report/estimate.h
libtpreport_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS)
EXTRA_DIST += docs/json-shape.md
