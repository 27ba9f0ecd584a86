# ggml's graph nodes read from the node (track/work/ggml.c): a stand-in ggml CPU backend with
# ggml's tensor layout, and one with another layout, which must be refused.
check_PROGRAMS += tests/victims/libtpggml.so tests/victims/v_ggml \
	tests/victims/other/libtpggml.so tests/victims/v_ggml_other \
	tests/victims/instr/libtpggml.so tests/victims/v_ggml_instr
tests_victims_libtpggml_so_SOURCES = tests/victims/libtpggml.c tests/victims/tpggml.h
tests_victims_libtpggml_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpggml_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpggml.so
tests_victims_libtpggml_so_LDADD = -lm -lpthread
tests_victims_v_ggml_SOURCES = tests/victims/v_ggml.c tests/victims/tpggml.h
tests_victims_v_ggml_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_ggml_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_ggml_LDADD = tests/victims/libtpggml.so
tests_victims_other_libtpggml_so_SOURCES = tests/victims/libtpggml.c tests/victims/tpggml.h
tests_victims_other_libtpggml_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -DTP_OTHER_LAYOUT
tests_victims_other_libtpggml_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpggml.so
tests_victims_other_libtpggml_so_LDADD = -lm -lpthread
tests_victims_v_ggml_other_SOURCES = tests/victims/v_ggml.c tests/victims/tpggml.h
tests_victims_v_ggml_other_CFLAGS = $(VICTIM_CFLAGS) -DTP_OTHER_LAYOUT
tests_victims_v_ggml_other_LDFLAGS = -Wl,-rpath,'$$ORIGIN/other'
tests_victims_v_ggml_other_LDADD = tests/victims/other/libtpggml.so
# The same built with -finstrument-functions, as a user might to see ggml's functions.
tests_victims_instr_libtpggml_so_SOURCES = tests/victims/libtpggml.c tests/victims/tpggml.h
tests_victims_instr_libtpggml_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -finstrument-functions
tests_victims_instr_libtpggml_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpggml.so
tests_victims_instr_libtpggml_so_LDADD = -lm -lpthread
tests_victims_v_ggml_instr_SOURCES = tests/victims/v_ggml.c tests/victims/tpggml.h
tests_victims_v_ggml_instr_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_ggml_instr_LDFLAGS = -Wl,-rpath,'$$ORIGIN/instr'
tests_victims_v_ggml_instr_LDADD = tests/victims/instr/libtpggml.so
TESTS += tests/ggml_nodes.sh
EXTRA_DIST += tests/ggml_nodes.sh docs/ggml.md bench/ggml/block.c
