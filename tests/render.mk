# Analysis and renderers: roofline / verdict / Amdahl arithmetic (check_analyze), units, JSON
# escaping, golden JSON and text reports (check_render), and the JSON Schema of the report
# checked against the golden reports (schema_validate.sh).
check_PROGRAMS += tests/check_analyze tests/check_render
tests_check_analyze_SOURCES = tests/check_analyze.c
tests_check_analyze_CFLAGS = $(TEST_CFLAGS)
tests_check_analyze_LDADD = $(TEST_LIBS)
tests_check_render_SOURCES = tests/check_render.c
tests_check_render_CFLAGS = $(TEST_CFLAGS) $(JSONC_CFLAGS)
tests_check_render_LDADD = $(TEST_LIBS) $(JSONC_LIBS)
TESTS += tests/check_analyze tests/check_render tests/schema_validate.sh
# The series over time (downsampling, the text heap chart) and the HTML page of a small model.
check_PROGRAMS += tests/check_series
tests_check_series_SOURCES = tests/check_series.c
tests_check_series_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_series_LDADD = $(TP_TRACK) $(TEST_LIBS)
TESTS += tests/check_series
EXTRA_DIST += tests/schema_validate.sh tests/golden/report.json tests/golden/report.txt \
	tests/golden/heaponly.json tests/golden/heaponly.txt tests/golden/oneop.txt \
	tests/golden/merged.json tests/golden/merged.txt docs/tprof.schema.json docs/report.md
