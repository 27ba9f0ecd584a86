# Analysis and renderers of the report model (text and JSON), shared by the library and the CLI.
libtprofcore_la_SOURCES += src/analyze.c src/render_json.c src/render_text.c src/render_text.h src/render_text_memory.c src/render_folded.c src/units.c src/units.h
